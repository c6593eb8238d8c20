// Fuzzing an algorithm's `step` with what a careless or curious peer sends: the states an
// algorithm reaches in small random runs (random delivery order, timers firing, a crash), and
// for each, random JSON and mutations of the messages the algorithm itself sends. Seeded, so a
// failure reproduces; bounded in count.
import type {
  Algorithm,
  AlgorithmConfig,
  Message,
  ProcessId,
} from '@shared/algorithms/algorithm.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { createRng, type Random } from '@shared/sim/rng.ts';

const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

export function randomJson(r: Random, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor((r() - 0.5) * 2 ** (r() * 60));
    case 3:
      return r() * 1e6 - 5e5;
    case 4:
      return ['', 'x', 'ELECTION', 'OK', '__proto__', 'é'.repeat(40), String(Math.floor(r() * 10))][
        Math.floor(r() * 7)
      ];
    case 5:
      return -1;
    case 6:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = 0; i < Math.floor(r() * 4); i++)
        o[
          r() < 0.2 ? PROTO_KEYS[Math.floor(r() * PROTO_KEYS.length)]! : `f${Math.floor(r() * 5)}`
        ] = randomJson(r, depth + 1);
      return o;
    }
  }
}

function deep(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { type: 'x', v };
  return v;
}

/** A message a peer might send instead of `m`: a field deleted, retyped, pushed out of range... */
export function mutate(m: Message, r: Random, types: readonly string[]): unknown {
  const keys = Object.keys(m);
  const key = keys[Math.floor(r() * keys.length)] ?? 'type';
  const copy: Record<string, unknown> = JSON.parse(JSON.stringify(m));
  switch (Math.floor(r() * 9)) {
    case 0:
      delete copy[key];
      return copy;
    case 1:
      copy[key] = randomJson(r);
      return copy;
    case 2:
      copy[key] = [-1, 2 ** 53, 1e300, -0.5][Math.floor(r() * 4)];
      return copy;
    case 3:
      copy[key] = Array.from({ length: 6000 }, (_, i) => i);
      return copy;
    case 4:
      copy['type'] = types[Math.floor(r() * types.length)];
      return copy;
    case 5:
      copy['type'] = PROTO_KEYS[Math.floor(r() * PROTO_KEYS.length)];
      return copy;
    case 6:
      return { ...copy, [key]: deep(40) };
    case 7:
      return JSON.parse(`{"type":${JSON.stringify(m.type)},"__proto__":{"polluted":true}}`);
    default:
      return [m];
  }
}

export interface Reached<S> {
  state: S;
  sent: Message[];
}

/** States of every process over a few small random runs, and the messages they sent. */
export function reachStates<S>(
  alg: Algorithm<S>,
  seed: number,
  runs = 4,
  n = 5,
  steps = 300,
): Reached<S>[] {
  const r = createRng(seed);
  const ids = Array.from({ length: n }, (_, i) => i);
  const timing = {
    ...DEFAULT_TIMING,
    transmission: 10,
    processing: 1,
    heartbeatInterval: 50,
    heartbeatTimeout: 150,
  };
  const out: Reached<S>[] = [];
  const sent: Message[] = [];
  for (let run = 0; run < runs; run++) {
    const ctx = () => ({ now: run * 1e6, random: r });
    const states = new Map<ProcessId, S>();
    const timers = new Map<ProcessId, Set<string>>();
    const queue: { from: ProcessId; to: ProcessId; message: Message }[] = [];
    const apply = (id: ProcessId, effects: readonly { kind: string; [k: string]: unknown }[]) => {
      for (const e of effects) {
        if (e.kind === 'send') {
          queue.push({ from: id, to: e['to'] as ProcessId, message: e['message'] as Message });
          if (sent.length < 400) sent.push(e['message'] as Message);
        } else if (e.kind === 'set-timer') timers.get(id)!.add(e['name'] as string);
        else if (e.kind === 'cancel-timer') timers.get(id)!.delete(e['name'] as string);
      }
    };
    for (const id of ids) {
      const config: AlgorithmConfig = {
        self: id,
        ids,
        ring: ids,
        timing,
        detector: run % 2 ? 'heartbeat' : 'poll',
        ...(run === 0 ? { initialCoordinator: n - 1 } : {}),
      };
      const o = alg.init(config, ctx());
      states.set(id, o.state);
      timers.set(id, new Set());
      apply(id, o.effects);
    }
    const crashed = run >= 2 ? n - 1 : -1;
    for (let i = 0; i < steps; i++) {
      const live = ids.filter((id) => id !== crashed);
      const pick = r();
      let id: ProcessId;
      let event;
      if (pick < 0.6 && queue.length) {
        const m = queue.splice(Math.floor(r() * queue.length), 1)[0]!;
        if (m.to === crashed || !states.has(m.to)) continue;
        id = m.to;
        event = { kind: 'message' as const, from: m.from, message: m.message };
      } else if (pick < 0.95) {
        id = live[Math.floor(r() * live.length)]!;
        const names = [...timers.get(id)!];
        if (!names.length) continue;
        const name = names[Math.floor(r() * names.length)]!;
        timers.get(id)!.delete(name);
        event = { kind: 'timer' as const, name };
      } else {
        id = live[Math.floor(r() * live.length)]!;
        event = { kind: 'elect' as const };
      }
      const o = alg.step(states.get(id)!, event, ctx());
      states.set(id, o.state);
      apply(id, o.effects);
      if (i % 10 === 0) out.push({ state: o.state, sent: [] });
    }
  }
  return out.map((x) => ({ ...x, sent }));
}
