import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { enabled, initialWorld, move } from '@shared/explore/engine.ts';
import { deadline, type ExploreSetup, type World } from '@shared/explore/world.ts';
import { search } from '@shared/explore/search.ts';
import { createKeyer } from '@shared/explore/key.ts';
import { leads } from '@shared/analysis/properties.ts';
import { parseTraceFile, type ParsedTrace } from '@shared/protocol/trace-file.ts';
import { finalState } from '@shared/analysis/replay.ts';
import { createRng } from '@shared/sim/rng.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { parseExploreCli, runExplore } from '../../scripts/explore.ts';

const clock = () => performance.now();
const T = DEFAULT_TIMING.transmission;
const M = DEFAULT_TIMING.processing;

function setupFor(
  algorithm: 'bully' | 'raft' | 'ring',
  n: number,
  extra: Partial<ExploreSetup> = {},
): ExploreSetup {
  const ids = Array.from({ length: n }, (_, i) => i);
  return {
    algorithm: getAlgorithm(algorithm),
    ids,
    timing: DEFAULT_TIMING,
    detector: 'none',
    initialCoordinator: n - 1,
    crashed: [n - 1],
    initiators: ids.slice(0, -1),
    detectWindow: T,
    budget: { crash: 0, restart: 0, drop: 0, partition: 0, slow: 0 },
    seed: 1,
    extremes: true,
    ...extra,
  };
}

describe('explore', () => {
  it('explore: Bully under one slow link reaches two coordinators at once (000: failure detection by timeout needs UB = 2T + M to hold)', () => {
    const cli = parseExploreCli([
      '--algorithm',
      'bully',
      '--nodes',
      '4',
      '--faults',
      'slow',
      '--seconds',
      '120',
    ]);
    const { result, schedule, traceText } = runExplore(cli, clock);
    expect(result.stoppedBy).toBe('found');
    expect(result.finding!.violation.property).toBe('safety');
    expect(result.finding!.actions[0]!.kind).toBe('slow');
    expect(schedule.length).toBe(result.finding!.actions.length);
    // The schedule replays: at its end two processes lead, as the explorer said.
    const parsed = parseTraceFile(traceText!);
    expect(parsed.ok).toBe(true);
    const trace = (parsed as { trace: ParsedTrace }).trace;
    expect(trace.header).toMatchObject({
      source: 'explorer',
      algorithm: 'bully',
      ids: [0, 1, 2, 3],
    });
    const leaders = finalState(trace)
      .processes.filter((p) => p.status === 'up' && leads(p.report))
      .map((p) => p.id);
    expect(leaders).toEqual(result.finding!.violation.processes);
    expect(leaders).toHaveLength(2);
    // The verdict closes the trace as a finding, as the relay's live checker records them.
    expect(finalState(trace).findings).toEqual([
      expect.objectContaining({ kind: 'safety', processes: leaders }),
    ]);
  });

  it('explore: Bully without faults keeps safety in every reachable state and agrees whenever nothing is pending', () => {
    const r = search(setupFor('bully', 4), { depth: 200, states: 100_000, ms: 120_000 }, clock);
    expect(r.finding).toBeNull();
    expect(r.stoppedBy).toBe('exhausted');
    expect(r.states).toBeGreaterThan(1000);
  });

  it('explore: Bully survives one crash anywhere when the followers of the crashed process detect it', () => {
    const r = search(
      setupFor('bully', 4, { budget: { crash: 1, restart: 0, drop: 0, partition: 0, slow: 0 } }),
      { depth: 200, states: 100_000, ms: 120_000 },
      clock,
    );
    expect(r.finding).toBeNull();
    expect(r.stoppedBy).toBe('exhausted');
  });

  it('explore: Raft under a slow link keeps one leader per term within the bound (Raft §5.2: one vote per term)', () => {
    const r = search(
      setupFor('raft', 4, { budget: { crash: 0, restart: 0, drop: 0, partition: 0, slow: 1 } }),
      { depth: 100, states: 5000, ms: 120_000 },
      clock,
    );
    expect(r.finding).toBeNull();
    expect(r.stoppedBy).toBe('states');
  });

  it('explore: a timer never fires while a message that must land before it is in flight, and fires exactly when due', () => {
    const setup = setupFor('bully', 5);
    const rng = createRng(7);
    for (let walk = 0; walk < 30; walk++) {
      let w: World = initialWorld(setup);
      for (let k = 0; k < 60; k++) {
        const acts = enabled(setup, w).filter((a) => a.kind === 'fire');
        if (acts.length === 0) break;
        const a = acts[Math.floor(rng() * acts.length)]!;
        if (a.kind !== 'fire') continue;
        const p = w.pending.find((x) => x.id === a.id)!;
        const next = move(setup, w, a);
        expect(next.now).toBeLessThanOrEqual(deadline(w));
        expect(next.now).toBeGreaterThanOrEqual(w.now);
        if (p.kind === 'timer') expect(next.now).toBe(p.earliest);
        w = next;
      }
    }
  });

  it('explore: links are FIFO: a message never arrives before one sent earlier on the same link', () => {
    const setup = setupFor('ring', 4);
    const rng = createRng(3);
    for (let walk = 0; walk < 20; walk++) {
      const delivered: TraceEvent[] = [];
      let w: World = initialWorld(setup);
      for (let k = 0; k < 80; k++) {
        const acts = enabled(setup, w);
        if (acts.length === 0) break;
        w = move(
          setup,
          w,
          acts[Math.floor(rng() * acts.length)]!,
          (e) => e.kind === 'deliver' && delivered.push({ seq: 0, ...e }),
        );
      }
      const last = new Map<string, number>();
      for (const e of delivered) {
        if (e.kind !== 'deliver') continue;
        const link = `${e.from}->${e.to}`;
        expect(e.msg).toBeGreaterThan(last.get(link) ?? 0);
        last.set(link, e.msg);
      }
    }
  });

  it('explore: the ok-timeout (UB = 2T + M) cannot fire before the OK of a live higher process arrives', () => {
    const setup = setupFor('bully', 4, { initiators: [1] });
    let w = initialWorld(setup);
    const fire = (pred: (w: World) => number) =>
      (w = move(setup, w, { kind: 'fire', id: pred(w), at: 'early' }));
    fire((x) => x.pending.find((p) => p.kind === 'elect')!.id);
    fire((x) => x.pending.find((p) => p.kind === 'deliver' && p.to === 2)!.id);
    const ok = w.pending.find((p) => p.kind === 'deliver' && p.message.type === 'OK')!;
    const timer = w.pending.find((p) => p.kind === 'timer' && p.node === 1)!;
    expect(timer.earliest).toBe(2 * T + M);
    expect(ok.latest).toBeLessThan(timer.earliest);
    expect(enabled(setup, w).some((a) => a.kind === 'fire' && a.id === timer.id)).toBe(false);
  });

  it('explore: worlds that differ only in event ids or in absolute time share a key', () => {
    const setup = setupFor('bully', 4);
    const keyer = createKeyer();
    // The whole 64-bit fingerprint, as one number to compare.
    const key = (x: World) => BigInt(keyer(x)) + (BigInt(keyer.hi) << 32n);
    const w = initialWorld(setup);
    const shifted: World = {
      ...w,
      now: w.now + 500,
      nextId: w.nextId + 9,
      pending: w.pending.map((p) => ({
        ...p,
        id: p.id + 100,
        earliest: p.earliest + 500,
        latest: p.latest + 500,
      })),
    };
    expect(key(shifted)).toBe(key(w));
    const reordered: World = { ...w, pending: [...w.pending].reverse() };
    expect(key(reordered)).toBe(key(w));
    expect(key(move(setup, w, enabled(setup, w)[0]!))).not.toBe(key(w));
  });

  it('explore: the CLI refuses unknown faults and labs too large to search', () => {
    expect(parseExploreCli(['--faults', 'slow,drop']).setup.budget).toEqual({
      crash: 0,
      restart: 0,
      drop: 1,
      partition: 0,
      slow: 1,
    });
    expect(() => parseExploreCli(['--faults', 'meteor'])).toThrow(/--faults/);
    expect(() => parseExploreCli(['--nodes', '40'])).toThrow(/--nodes/);
    expect(() => parseExploreCli(['--initiators', '3', '--nodes', '4'])).toThrow(/live id/);
  });
});
