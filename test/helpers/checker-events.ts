// Hand-written traces for the checker's unit tests: a tiny builder that stamps seq numbers and
// message ids, and feeds each event to a checker as it is written, collecting the findings.
import type { ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import {
  createChecker,
  type Checker,
  type CheckerSetup,
  type Finding,
} from '@shared/analysis/checker.ts';
import type { DistributiveOmit } from '@shared/sim/event-queue.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';

export type Body = DistributiveOmit<TraceEvent, 'seq' | 't'>;

export const follower = (coordinator: ProcessId | null, term?: number): Report => ({
  role: 'follower',
  coordinator,
  electing: false,
  ...(term === undefined ? {} : { term }),
});
export const leading = (self: ProcessId, term?: number): Report => ({
  role: 'coordinator',
  coordinator: self,
  electing: false,
  ...(term === undefined ? {} : { term }),
});
export const electing = (term?: number): Report => ({
  role: 'electing',
  coordinator: null,
  electing: true,
  ...(term === undefined ? {} : { term }),
});

export interface Script {
  checker: Checker;
  findings: Finding[];
  /** Feed one event at time t. */
  at(t: number, body: Body): Script;
  report(t: number, node: ProcessId, report: Report): Script;
  /** A message sent at t and delivered at t + delay (both events fed in order). */
  message(t: number, from: ProcessId, to: ProcessId, type: string, delay: number): Script;
  tick(t: number): Script;
  of(kind: Finding['kind']): Finding[];
}

export function script(setup: CheckerSetup): Script {
  const checker = createChecker(setup);
  const findings: Finding[] = [];
  let seq = 0;
  let msg = 1;
  const s: Script = {
    checker,
    findings,
    at(t, body) {
      findings.push(...checker.observe({ seq: seq++, t, ...body } as TraceEvent));
      return s;
    },
    report: (t, node, report) => s.at(t, { kind: 'report', node, report }),
    message(t, from, to, type, delay) {
      const id = msg++;
      s.at(t, { kind: 'send', msg: id, from, to, type, message: { type } });
      return s.at(t + delay, { kind: 'deliver', msg: id, from, to, type });
    },
    tick(t) {
      findings.push(...checker.tick(t));
      return s;
    },
    of: (kind) => findings.filter((f) => f.kind === kind),
  };
  return s;
}

/** Every id reports following `coordinator` at time t (the coordinator itself leading). */
export function steady(
  s: Script,
  ids: readonly ProcessId[],
  coordinator: ProcessId,
  t = 0,
  term?: number,
): Script {
  for (const id of ids)
    s.report(t, id, id === coordinator ? leading(id, term) : follower(coordinator, term));
  return s;
}
