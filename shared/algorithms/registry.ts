// The registry: every algorithm by name, for hosts that pick one from a lab's configuration.
import type { Algorithm, AlgorithmName } from './algorithm.ts';
import { bully } from './bully.ts';
import { emergent } from './emergent.ts';
import { raft } from './raft.ts';
import { ring } from './ring.ts';
import { ringActiveList } from './ring-active-list.ts';

export const ALGORITHMS: Readonly<Record<AlgorithmName, Algorithm<any, any>>> = {
  bully,
  ring,
  'ring-active-list': ringActiveList,
  emergent,
  raft,
};

export function getAlgorithm(name: AlgorithmName): Algorithm<any, any> {
  return ALGORITHMS[name];
}
