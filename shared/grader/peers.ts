// Peers beside her module in a grading case: a lab where some ids run another implementation.
// Her module plays with the bots in a live lab, and some behaviour of hers is reachable only
// through a peer that does what the documents allow but her own code never does. Bully's
// winner tells "all processes" in 000 ("sending all processes a message") but only the lower ids
// in 003: a module that believes a lower COORDINATOR is caught only by a peer announcing to
// everyone (issue 26: the known Bully gap).
import type { AlgorithmName, AnyAlgorithm, Effect, ProcessId } from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';

/** Which ids run which peer, by the peer's name (peerAlgorithm). */
export interface Peers {
  ids: readonly ProcessId[];
  name: PeerName;
}

type PeerName = 'bully-announces-to-all';

interface Tagged {
  peer: boolean;
  s: unknown;
}

/**
 * The lab's Bully, announcing its victory to every process as 000 writes it, not only to the
 * lower ids: each COORDINATOR it sends goes to the higher ids too.
 */
function announcesToAll(): AnyAlgorithm {
  const ref = getAlgorithm('bully');
  interface State {
    self: ProcessId;
    ids: readonly ProcessId[];
    s: unknown;
  }
  const widen = ({ self, ids }: Omit<State, 's'>, effects: Effect[]): Effect[] => {
    const coordinator = effects.find((e) => e.kind === 'send' && e.message.type === 'COORDINATOR');
    if (!coordinator || coordinator.kind !== 'send') return effects;
    const told = new Set(
      effects.flatMap((e) => (e.kind === 'send' && e.message.type === 'COORDINATOR' ? [e.to] : [])),
    );
    const more = ids
      .filter((id) => id !== self && !told.has(id))
      .map((to): Effect => ({ kind: 'send', to, message: coordinator.message }));
    return [...effects, ...more];
  };
  return {
    ...ref,
    init(config, ctx) {
      const out = ref.init(config, ctx);
      const who = { self: config.self, ids: config.ids };
      return { state: { ...who, s: out.state }, effects: widen(who, out.effects) };
    },
    step(state: State, event, ctx) {
      const out = ref.step(state.s, event, ctx);
      return { state: { ...state, s: out.state }, effects: widen(state, out.effects) };
    },
    report: (state: State) => ref.report(state.s),
  };
}

function peerAlgorithm(name: PeerName): AnyAlgorithm {
  switch (name) {
    case 'bully-announces-to-all':
      return announcesToAll();
  }
}

/** `subject` at every id but `peers.ids`, which run the peer; the states are tagged with which ran them. */
export function withPeers(subject: AnyAlgorithm, peers: Peers | undefined): AnyAlgorithm {
  if (!peers) return subject;
  const peer = peerAlgorithm(peers.name);
  const name: AlgorithmName = subject.name;
  const pick = (t: Tagged) => (t.peer ? peer : subject);
  return {
    name,
    messageTypes: subject.messageTypes,
    init(config, ctx) {
      const isPeer = peers.ids.includes(config.self);
      const out = (isPeer ? peer : subject).init(config, ctx);
      return { state: { peer: isPeer, s: out.state }, effects: out.effects };
    },
    step(state: Tagged, event, ctx) {
      const out = pick(state).step(state.s, event, ctx);
      return { state: { peer: state.peer, s: out.state }, effects: out.effects };
    },
    report: (state: Tagged) => pick(state).report(state.s),
  };
}
