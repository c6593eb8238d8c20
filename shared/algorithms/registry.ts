// The registry: every algorithm by name, for hosts that pick one from a lab's configuration.
import type { AlgorithmName, AnyAlgorithm } from './algorithm.ts';
import { bully } from './bully.ts';
import { BULLY_SCHEMAS } from './bully-messages.ts';
import { EMERGENT_SCHEMAS } from './emergent-messages.ts';
import type { MessageSchemas } from './messages.ts';
import { RAFT_SCHEMAS } from './raft-messages.ts';
import { ACTIVE_LIST_SCHEMAS } from './ring-active-list-messages.ts';
import { RING_SCHEMAS } from './ring-messages.ts';
import { emergent } from './emergent.ts';
import { raft } from './raft.ts';
import { ring } from './ring.ts';
import { ringActiveList } from './ring-active-list.ts';

export const ALGORITHMS: Readonly<Record<AlgorithmName, AnyAlgorithm>> = {
  bully,
  ring,
  'ring-active-list': ringActiveList,
  emergent,
  raft,
};

export function getAlgorithm(name: AlgorithmName): AnyAlgorithm {
  return ALGORITHMS[name];
}

/** Every algorithm's message schemas, for hosts that build messages by hand (hand mode's kit). */
export const MESSAGE_SCHEMAS: Readonly<Record<AlgorithmName, MessageSchemas>> = {
  bully: BULLY_SCHEMAS,
  ring: RING_SCHEMAS,
  'ring-active-list': ACTIVE_LIST_SCHEMAS,
  emergent: EMERGENT_SCHEMAS,
  raft: RAFT_SCHEMAS,
};
