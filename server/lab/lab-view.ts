// What the relay shows of a lab and of each process in it (the dashboard's snapshot, the REST
// answers): each figure as the relay holds it, her tab's grade labelled as her claim.
import type { LabSnapshot, ProcessInfo } from '@shared/protocol/frames.ts';
import type { Lab } from './lab.ts';
import { statusOf, type ProcessEntry } from './process-table.ts';

/** One process as the relay shows it. */
export function processInfo(lab: Lab, entry: ProcessEntry): ProcessInfo {
  const hand = lab.figures.info(entry.id);
  return {
    id: entry.id,
    name: entry.name,
    status: statusOf(entry),
    kind: entry.conn ? entry.kind : null,
    transport: entry.conn?.transport ?? null,
    report: entry.report,
    group: lab.fabric.groupIndex(entry.id),
    ...(entry.mode ? { mode: entry.mode } : {}),
    ...(entry.grade
      ? {
          claimedGrade: {
            ...entry.grade.summary,
            claimed: true as const,
            at: entry.grade.at,
            trace: entry.grade.trace !== null,
          },
        }
      : {}),
    since: entry.since,
    ...(hand ? { hand } : {}),
    ...(entry.findings ? { findings: entry.findings } : {}),
    ...(entry.paused ? { paused: true as const, held: lab.pausedHolds.count(entry.id) } : {}),
  };
}

export function labSnapshot(lab: Lab): LabSnapshot {
  return {
    config: lab.config,
    processes: lab.processes.list().map((e) => processInfo(lab, e)),
    paused: lab.scheduler.paused,
    inFlight: lab.scheduler.size + lab.pausedHolds.size,
    now: lab.now(),
    partition: lab.fabric.partition,
    seq: lab.lastSeq,
    joinCode: lab.joinCode,
  };
}
