// Builders for the dashboard's model in tests: a lab config and a snapshot with every process up.
import {
  DEFAULT_TIMING,
  type AlgorithmName,
  type ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { DEFAULT_FABRIC, type LabConfig } from '@shared/protocol/lab-config.ts';
import type { LabSnapshot } from '@shared/protocol/frames.ts';

export function labConfig(ids: ProcessId[], algorithm: AlgorithmName = 'bully'): LabConfig {
  return {
    name: 'test',
    algorithm,
    ids,
    ring: [],
    timing: DEFAULT_TIMING,
    detector: 'none',
    options: {},
    fabric: DEFAULT_FABRIC,
    seed: 1,
  };
}

export function snapshotOf(ids: ProcessId[], algorithm: AlgorithmName = 'bully'): LabSnapshot {
  return {
    config: labConfig(ids, algorithm),
    processes: ids.map((id) => ({
      id,
      name: `p${id}`,
      status: 'up' as const,
      kind: 'bot' as const,
      transport: 'server' as const,
      report: null,
      group: null,
    })),
    paused: false,
    inFlight: 0,
    now: 0,
    partition: null,
  };
}
