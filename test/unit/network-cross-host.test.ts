// One network model, two hosts: the same rules and seed given to the simulator and to the relay
// (a lab under a manual clock) give every message the same fate for the same sends: delivered
// at the same time (the relay serves in whole ms, so at the next whole ms), dropped for the same
// reason (loss, partition at the send, or a cut made while it was in flight), duplicated into
// the same copy. Burst and independent loss, jitter, the time scale, directed overrides,
// duplication and FIFO or reordering are all in play.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Algorithm, Message, ProcessId } from '@shared/algorithms/algorithm.ts';
import { DEFAULT_LINK, type FabricConfig } from '@shared/protocol/lab-config.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { createRng } from '@shared/sim/rng.ts';
import { simulate } from '@shared/sim/simulator.ts';
import { Lab } from '../../server/lab/lab.ts';
import { partition } from '../../server/lab/lab-control.ts';
import { newLabConfig } from '../../server/lab/lab-settings.ts';
import { TraceStore } from '../../server/trace/trace-store.ts';
import { FakeConn, tempDir } from '../helpers/relay-lab.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const IDS = [0, 1, 2, 3];

interface Send {
  at: number;
  from: ProcessId;
  to: ProcessId;
  k: number;
}

/** Sends at distinct whole ms (3k + 1), so both hosts take them in the same order. */
function schedule(n: number, seed: number): Send[] {
  const rnd = createRng(seed);
  return Array.from({ length: n }, (_, k) => {
    const from = IDS[Math.floor(rnd() * IDS.length)]!;
    const others = IDS.filter((id) => id !== from);
    return { at: 3 * k + 1, from, to: others[Math.floor(rnd() * others.length)]!, k };
  });
}

/** Cuts at 3k + 2 ms, between sends. */
const CUTS: { at: number; groups: ProcessId[][] | null }[] = [
  {
    at: 152,
    groups: [
      [0, 1],
      [2, 3],
    ],
  },
  { at: 302, groups: null },
  { at: 452, groups: [[0], [1, 2]] },
  { at: 602, groups: null },
];

/** Sends what the script says, when it says (one timer per send); nothing else. */
function scripted(sends: readonly Send[]): Algorithm<null, Message> {
  return {
    name: 'bully',
    messageTypes: ['PING'],
    init: (config) => ({
      state: null,
      effects: sends
        .filter((s) => s.from === config.self)
        .map((s) => ({ kind: 'set-timer' as const, name: `s${s.k}`, after: s.at })),
    }),
    step: (state, event) => {
      if (event.kind !== 'timer') return { state, effects: [] };
      const s = sends[Number(event.name.slice(1))]!;
      return { state, effects: [{ kind: 'send', to: s.to, message: { type: 'PING', k: s.k } }] };
    },
    report: () => ({ role: 'none', coordinator: null, electing: false }),
  };
}

type Fates = Map<number, string>;

/** Each message's life as one line: sent when, then delivered when or dropped why, and its copy. */
function fatesOf(events: readonly TraceEvent[], deliveredAt: (t: number) => number): Fates {
  const out: Fates = new Map();
  const add = (msg: number, text: string) => out.set(msg, `${out.get(msg) ?? ''}${text}; `);
  for (const e of events) {
    if (e.kind === 'send') add(e.msg, `${e.from}->${e.to} sent ${e.t}`);
    else if (e.kind === 'duplicate') add(e.msg, `copy of ${e.of} made ${e.t}`);
    else if (e.kind === 'deliver') add(e.msg, `delivered ${deliveredAt(e.t)}`);
    else if (e.kind === 'drop') add(e.msg, `dropped (${e.reason}) ${deliveredAt(e.t)}`);
  }
  return out;
}

function inSimulator(rules: FabricConfig, seed: number, sends: readonly Send[]): Fates {
  const run = simulate({
    algorithm: scripted(sends),
    ids: IDS,
    detector: 'none',
    network: rules,
    partitions: CUTS,
    seed,
    until: 100_000,
  });
  // The relay serves a message at the first whole ms at or after it is due.
  return fatesOf(run.trace, Math.ceil);
}

async function inRelay(
  dir: string,
  name: string,
  rules: FabricConfig,
  seed: number,
  sends: readonly Send[],
): Promise<Fates> {
  const config = newLabConfig(
    { name, size: IDS.length, detector: 'none', fabric: rules, seed },
    () => 1,
  );
  if (!config.ok) throw new Error('config');
  const clock = new ManualClock();
  const file = join(dir, `${name}.jsonl`);
  const lab = new Lab(config.value, {
    clock,
    store: new TraceStore(file, 10),
    vectorLimit: 64,
    resumeGraceMs: 100,
    onError: (e) => {
      throw e;
    },
  });
  const entries = IDS.map((id) => {
    const joined = lab.join(new FakeConn(), { id });
    if (!joined.ok) throw new Error('join');
    return joined.value;
  });
  const steps = [
    ...sends.map((s) => ({
      at: s.at,
      go: () => lab.send(entries[s.from]!, s.to, { type: 'PING', k: s.k }),
    })),
    ...CUTS.map((c) => ({ at: c.at, go: () => partition(lab, c.groups) })),
  ].sort((a, b) => a.at - b.at);
  for (const s of steps) {
    clock.advance(s.at - clock.now());
    s.go();
  }
  clock.advance(100_000);
  await lab.close();
  const events = (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TraceEvent);
  return fatesOf(events, (t) => t);
}

describe('network: one model for the relay and the simulator', () => {
  const tmp = tempDir('cross-host-');

  const base: FabricConfig = {
    link: {
      ...DEFAULT_LINK,
      delay: 20,
      jitter: 15.5,
      loss: 0.2,
      lossMode: 'burst',
      burstLength: 3,
      duplicate: 0.1,
    },
    links: [
      { from: 0, to: 1, delay: 50, jitter: 0 },
      { from: 2, to: 0, loss: 0.5, lossMode: 'independent' },
      { from: 3, to: 2, duplicate: 0.6, jitter: 80 },
    ],
    reorder: false,
    timeScale: 1.5,
  };
  const cases: [string, FabricConfig, number][] = [
    ['FIFO links, burst loss, time scale 1.5', base, 42],
    ['reordering on', { ...base, reorder: true }, 7],
    [
      'no faults on the default link, real time',
      { ...base, link: { ...DEFAULT_LINK, delay: 10, jitter: 40 }, timeScale: 1 },
      3,
    ],
  ];

  it.each(cases)(
    'network: the relay and the simulator give the same fates (%s)',
    async (label, rules, seed) => {
      const sends = schedule(300, seed);
      const sim = inSimulator(rules, seed, sends);
      const relay = await inRelay(tmp.path, `x${seed}`, rules, seed, sends);
      expect(relay.size).toBeGreaterThanOrEqual(300);
      expect([...relay]).toEqual([...sim]);
      // Every kind of fate happened, so the comparison covers them all.
      const lines = [...sim.values()].join('\n');
      expect(lines).toContain('delivered');
      expect(lines).toContain('dropped (partition)');
      if (label !== 'no faults on the default link, real time') {
        expect(lines).toContain('dropped (loss)');
        expect(lines).toContain('copy of');
      }
    },
  );
});
