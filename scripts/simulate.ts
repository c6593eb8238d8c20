// npm run simulate -- --algorithm bully|ring|ring-active-list|emergent|raft --nodes N [--ids 3,5,9]
//   [--crash 7,3] [--initiator 4] [--seed S] [--delay MS] [--jitter MS] [--drop P] [--until MS]
//   [--detector heartbeat|poll|none] [--trace FILE] [--json]
//
// Every process starts up, agreeing on the highest id as coordinator; the --crash ids crash at
// time 0. With --initiator only that process's failure detector fires (the others learn through
// messages), which reproduces the documents' analysis; without it every detector runs.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { simulate, type SimulationSpec } from '@shared/sim/simulator.ts';
import { serializeTrace } from '@shared/protocol/trace-file.ts';
import { checkAgreement } from '@shared/analysis/properties.ts';
import { handleHelp, usageError } from './cli.ts';
import { applyWork, parseWorkCli, WORK_ARGS, WORK_USAGE, type WorkCli } from './simulate-work.ts';

export const SIMULATE_USAGE = `Usage: npm run simulate -- [options]

One run of an election in the deterministic simulator. Every process starts up agreeing on the
highest id; the --crash ids crash at time 0. With --initiator only that process's failure
detector fires (the documents' analysis); without it every detector runs.

  --algorithm NAME     ${ALGORITHM_NAMES.join(' | ')} (default bully)
  --nodes N            ids 0..N-1 (default 8), or
  --ids 3,5,9          these ids
  --crash 7,3          ids that crash at time 0
  --initiator ID       the one process whose detector fires (must not be crashed)
  --seed S             random seed (default 1)
  --delay MS           link delay (default 100); --jitter MS (default 0); --drop P loss (default 0)
  --detector MODE      heartbeat | poll | none (default: heartbeat, or none with --initiator)
  --transmission MS    the T the processes declare (default: delay + jitter); with slower links
                       than it the documents' bound is broken, as in ALGORITHMS.md "Late answers"
  --fresh              every process starts knowing no coordinator (a lab switched to this
                       algorithm), instead of agreeing on the highest id
  --link-at MS:D[:J]   from virtual time MS on, links take D ms plus up to J of jitter
  --until MS           virtual time horizon (default 30 s without --initiator)
  --trace FILE         write the run's trace (JSON Lines, opens in /replay)
  --json               print one JSON object instead of text
${WORK_USAGE}
  --help               this text`;

export interface SimulateOptions {
  algorithm: AlgorithmName;
  ids: number[];
  crash: number[];
  initiator: number | null;
  seed: number;
  delay: number;
  jitter: number;
  drop: number;
  until: number | null;
  detector: 'heartbeat' | 'poll' | 'none' | null;
  /** The declared T, when it is not the link's delay + jitter. */
  transmission?: number | null;
  /** Link changes: from `at` on, this delay and jitter. */
  linkAt?: { at: number; delay: number; jitter: number }[];
  /** Start with no coordinator known anywhere. */
  fresh?: boolean;
  work?: WorkCli;
}

export function parseCli(argv: string[]): {
  options: SimulateOptions;
  json: boolean;
  trace: string | null;
} {
  const { values } = parseArgs({
    args: argv,
    options: {
      algorithm: { type: 'string', default: 'bully' },
      nodes: { type: 'string' },
      ids: { type: 'string' },
      crash: { type: 'string' },
      initiator: { type: 'string' },
      seed: { type: 'string', default: '1' },
      delay: { type: 'string', default: '100' },
      jitter: { type: 'string', default: '0' },
      drop: { type: 'string', default: '0' },
      until: { type: 'string' },
      detector: { type: 'string' },
      transmission: { type: 'string' },
      'link-at': { type: 'string' },
      fresh: { type: 'boolean', default: false },
      trace: { type: 'string' },
      json: { type: 'boolean', default: false },
      ...WORK_ARGS,
    },
    strict: true,
  });
  const algorithm = values.algorithm as AlgorithmName;
  if (!ALGORITHM_NAMES.includes(algorithm))
    throw new Error(`--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}`);
  const list = (s: string | undefined) =>
    s
      ? s
          .split(',')
          .filter(Boolean)
          .map((x) => num(x, 'id list'))
      : [];
  let ids = list(values.ids);
  if (ids.length === 0) {
    const n = num(values.nodes ?? '8', '--nodes');
    if (n < 1 || n > 100_000) throw new Error('--nodes must be between 1 and 100000');
    ids = Array.from({ length: n }, (_, i) => i);
  }
  const crash = list(values.crash);
  const initiator = values.initiator === undefined ? null : num(values.initiator, '--initiator');
  for (const id of [...crash, ...(initiator === null ? [] : [initiator])])
    if (!ids.includes(id)) throw new Error(`id ${id} is not among the lab's ids`);
  if (initiator !== null && crash.includes(initiator))
    throw new Error(
      `--initiator ${initiator} is crashed at time 0 (--crash): a crashed process detects nothing; choose a live initiator`,
    );
  const detector = values.detector ?? null;
  if (detector !== null && !['heartbeat', 'poll', 'none'].includes(detector))
    throw new Error('--detector must be heartbeat, poll or none');
  const drop = Number(values.drop);
  if (!(drop >= 0 && drop <= 1)) throw new Error('--drop must be a probability between 0 and 1');
  return {
    options: {
      algorithm,
      ids,
      crash,
      initiator,
      seed: num(values.seed, '--seed'),
      delay: num(values.delay, '--delay'),
      jitter: num(values.jitter, '--jitter'),
      drop,
      until: values.until === undefined ? null : num(values.until, '--until'),
      detector: detector as SimulateOptions['detector'],
      transmission:
        values.transmission === undefined ? null : num(values.transmission, '--transmission'),
      linkAt: parseLinkAt(values['link-at']),
      fresh: values.fresh,
      work: parseWorkCli(values, ids),
    },
    json: values.json,
    trace: values.trace ?? null,
  };
}

/** `--link-at 5000:80:20,9000:100` as link changes, in time order. */
function parseLinkAt(s: string | undefined): { at: number; delay: number; jitter: number }[] {
  if (!s) return [];
  return s
    .split(',')
    .filter(Boolean)
    .map((part) => {
      const [at, delay, jitter = '0', ...rest] = part.split(':');
      if (at === undefined || delay === undefined || rest.length > 0)
        throw new Error(`--link-at: "${part}" is not MS:DELAY or MS:DELAY:JITTER`);
      return {
        at: num(at, '--link-at time'),
        delay: num(delay, '--link-at delay'),
        jitter: num(jitter, '--link-at jitter'),
      };
    })
    .sort((a, b) => a.at - b.at);
}

function num(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${what}: "${s}" is not a non-negative number`);
  return n;
}

export function specFor(o: SimulateOptions, trace: boolean): SimulationSpec {
  return {
    algorithm: getAlgorithm(o.algorithm),
    ids: o.ids,
    seed: o.seed,
    link: { delay: o.delay, jitter: o.jitter, drop: o.drop },
    detector: o.detector ?? (o.initiator === null ? 'heartbeat' : 'none'),
    crashes: o.crash.map((id) => ({ id, at: 0 })),
    elections: o.initiator === null ? [] : [{ id: o.initiator, at: 0 }],
    ...(o.fresh ? { initialCoordinator: null } : {}),
    ...(o.transmission != null ? { timing: { transmission: o.transmission } } : {}),
    ...(o.linkAt?.length
      ? { linkChanges: o.linkAt.map(({ at, delay, jitter }) => ({ at, link: { delay, jitter } })) }
      : {}),
    // With detectors running (and in the emergent algorithm, whose pool heartbeats are part of
    // the algorithm) traffic never stops: run for a fixed virtual horizon.
    until: o.until ?? (o.initiator === null || o.algorithm === 'emergent' ? 30_000 : 600_000),
    trace,
  };
}

export function runSimulation(o: SimulateOptions, trace: boolean) {
  const { spec, audit } = applyWork(specFor(o, trace), o.work, o.until !== null);
  const r = simulate(spec);
  const transmission = o.transmission ?? o.delay + o.jitter;
  // Agreement as everywhere else in the lab: one live, leading coordinator (properties.ts).
  const disagreement = checkAgreement(o.algorithm, r.live, r.reports)?.message ?? null;
  const summary = { agreed: disagreement === null, coordinatorByNode: r.coordinatorByNode };
  return {
    algorithm: o.algorithm,
    nodes: o.ids.length,
    seed: r.seed,
    crashed: o.crash,
    initiator: o.initiator,
    live: r.live.length,
    coordinatorByNode: r.coordinatorByNode,
    agreed: summary.agreed,
    disagreement,
    warnings: warnings(o, summary),
    messages: r.messages,
    electionTime: r.electionTime,
    electionTimeInTransmissions:
      r.electionTime === null || transmission === 0 ? null : r.electionTime / transmission,
    endTime: r.endTime,
    events: r.events,
    truncated: r.truncated,
    ...(audit ? { tasks: audit.figures() } : {}),
    trace: r.trace,
  };
}

function main(): void {
  const argv = process.argv.slice(2);
  handleHelp(argv, SIMULATE_USAGE);
  let parsed;
  try {
    parsed = parseCli(argv);
  } catch (e) {
    usageError('simulate', SIMULATE_USAGE, e);
  }
  const started = performance.now();
  const { trace, ...result } = runSimulation(parsed.options, parsed.trace !== null);
  const wallMs = Math.round(performance.now() - started);
  if (parsed.trace) {
    writeFileSync(
      parsed.trace,
      serializeTrace(
        {
          source: 'simulator',
          algorithm: result.algorithm,
          ids: parsed.options.ids,
          seed: result.seed,
        },
        trace,
      ),
    );
  }
  if (parsed.json) {
    console.log(JSON.stringify({ ...result, wallMs }));
    return;
  }
  const coords = new Map<string, number[]>();
  for (const [id, c] of Object.entries(result.coordinatorByNode))
    coords.set(String(c), [...(coords.get(String(c)) ?? []), Number(id)]);
  const lines = [
    `${result.algorithm}: ${result.nodes} processes, ${result.live} live, seed ${result.seed}` +
      (result.initiator === null ? '' : `, initiator ${result.initiator}`),
    `crashed at t=0: ${result.crashed.length ? result.crashed.join(', ') : 'none'}`,
    `messages: ${result.messages.total} sent, ${result.messages.delivered} delivered, ${result.messages.dropped} dropped`,
    ...Object.entries(result.messages.byType).map(([t, n]) => `  ${t.padEnd(12)} ${n}`),
    `election time: ${result.electionTime === null ? 'no election' : `${result.electionTime} ms virtual (${result.electionTimeInTransmissions?.toFixed(2)} T)`}`,
    `coordinators believed: ${[...coords].map(([c, who]) => `${c} by ${who.length}`).join('; ')}${result.agreed ? ' (agreed)' : ` (NO AGREEMENT: ${result.disagreement})`}`,
    `${result.events} events in ${wallMs} ms wall time${result.truncated ? ' (stopped at the time horizon)' : ''}`,
    ...(result.tasks ? [`tasks: ${JSON.stringify(result.tasks)}`] : []),
    ...result.warnings,
  ];
  console.log(lines.join('\n'));
}

/** What a reader of the summary must not miss: agreement on a dead coordinator, an initiator that detects nothing. */
function warnings(
  o: SimulateOptions,
  r: { coordinatorByNode: Record<string, number | null> },
): string[] {
  const out: string[] = [];
  const believed = new Set(Object.values(r.coordinatorByNode));
  for (const c of believed) {
    if (c !== null && o.crash.includes(c))
      out.push(
        `warning: ${believed.size === 1 ? 'every live process believes' : 'some processes believe'} in ${c}, which crashed at time 0: no election replaced it${o.initiator === null ? '' : ` (did initiator ${o.initiator} detect the crash?)`}`,
      );
  }
  if (
    o.algorithm === 'emergent' &&
    o.initiator !== null &&
    initialRole(o, o.initiator) === 'idle'
  ) {
    out.push(
      `warning: initiator ${o.initiator} is an idle process in the emergent algorithm: idles do not watch the master (003), so it detects nothing; choose a slave`,
    );
  }
  return out;
}

function initialRole(o: SimulateOptions, id: number): string {
  const alg = getAlgorithm(o.algorithm);
  const coordinator = Math.max(...o.ids);
  const init = alg.init(
    {
      self: id,
      ids: o.ids,
      ring: o.ids,
      timing: {
        transmission: o.delay,
        processing: 1,
        heartbeatInterval: 5 * o.delay,
        heartbeatTimeout: 15 * o.delay,
      },
      detector: 'none',
      initialCoordinator: coordinator,
    },
    { now: 0, random: () => 0.5 },
  );
  return alg.report(init.state).role;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
