// The explorer's symmetry (shared/explore/draft.ts `downProc`, docs/CORE_SPEED.md "Symmetry"):
// worlds that differ only where nothing can ever read the difference are written one way, so the
// search meets them once. It must merge only such worlds: on every small lab plain search
// exhausts, the same violations, the same quiet outcomes and the same depth with it as without
// it; and a pair of worlds shows where it merges and where it must not.
import { describe, expect, it } from 'vitest';
import { enabled, move } from '@shared/explore/engine.ts';
import { createKeyer } from '@shared/explore/key.ts';
import { search } from '@shared/explore/search.ts';
import { DOWN, type ExploreSetup, type Pending, type World } from '@shared/explore/world.ts';
import { parseExploreCli } from '../../scripts/explore.ts';
import { clock, lab, LABS, visit } from '../helpers/explore-labs.ts';

const key = createKeyer();
const fingerprint = (w: World) => `${key(w)}:${key.hi}`;

/** Every world of a lab's exhaustive search, symmetry off. */
function worldsOf(setup: ExploreSetup, limits: ReturnType<typeof lab>['limits']): World[] {
  const out: World[] = [];
  search({ ...setup, symmetry: false }, { ...limits, onWorld: (w) => void out.push(w) }, clock);
  return out;
}

/** `w` with process `i` down and its random stream's position forgotten. */
function forget(w: World, i: number): World {
  return { ...w, procs: w.procs.map((p, k) => (k === i ? DOWN : p)) };
}

/** The first world with a down process that has drawn (its index), or null. */
function downWithDraws(worlds: World[]): [World, number] | null {
  for (const w of worlds) {
    const i = w.procs.findIndex((p) => p.state === null && p.draws > 0);
    if (i >= 0) return [w, i];
  }
  return null;
}

describe('explore: symmetry', () => {
  it('explore: with symmetry the same violations, quiet outcomes and depth as without, on every lab plain search exhausts, and never more worlds', () => {
    let merged = 0;
    for (const [algorithm, nodes, faults] of LABS) {
      const what = `${algorithm} ${nodes} ${faults}`;
      const on = visit(lab(algorithm, nodes, faults, ['--symmetry', 'on']), false);
      const off = visit(lab(algorithm, nodes, faults, ['--symmetry', 'off']), false);
      expect(on.result.exhaustive, what).toBe(true);
      expect(off.result.exhaustive, what).toBe(true);
      expect(on.violations, what).toEqual(off.violations);
      expect(on.quiet, what).toEqual(off.quiet);
      expect(on.result.depth, what).toBe(off.result.depth);
      expect(on.result.states, what).toBeLessThanOrEqual(off.result.states);
      merged += off.result.states - on.result.states;
    }
    // The ring draws its election ids, so a process crashed after its draw is merged with one
    // crashed before it (ring N = 3 with a crash: 1,479 worlds without, 1,461 with).
    expect(merged).toBeGreaterThan(0);
  }, 180_000);

  it('explore: with symmetry the first violation is the same, with a schedule as short (Bully under a slow link, 000: UB = 2T + M)', () => {
    const args = [
      '--algorithm',
      'bully',
      '--nodes',
      '4',
      '--faults',
      'slow,crash',
      '--probes',
      '0',
    ];
    const on = parseExploreCli([...args, '--symmetry', 'on']);
    const off = parseExploreCli([...args, '--symmetry', 'off']);
    const a = search(on.setup, on.limits, clock);
    const b = search(off.setup, off.limits, clock);
    expect(b.finding).not.toBeNull();
    expect(a.finding!.violation).toEqual(b.finding!.violation);
    expect(a.finding!.actions).toHaveLength(b.finding!.actions.length);
  }, 60_000);

  it('explore: a down process with no restart left is merged with its twin that drew less: every move from either reaches one world', () => {
    const cli = lab('ring', 3, 'crash');
    const setup = { ...cli.setup, symmetry: false };
    const found = downWithDraws(worldsOf(setup, cli.limits));
    expect(found).not.toBeNull();
    const [w, i] = found!;
    const twin = forget(w, i);
    // Without symmetry the two are two worlds; every move from them differs only where nothing reads.
    expect(fingerprint(twin)).not.toBe(fingerprint(w));
    const canon = { ...setup, symmetry: true };
    const acts = enabled(setup, w);
    expect(enabled(setup, twin)).toEqual(acts);
    expect(acts.length).toBeGreaterThan(0);
    for (const a of acts) {
      const x = move(setup, w, a);
      expect(fingerprint(forget(x, i))).toBe(fingerprint(move(setup, twin, a)));
      // With symmetry on, the crash that made `w` would have written it as its twin.
      expect(fingerprint(move(canon, twin, a))).toBe(fingerprint(move(setup, twin, a)));
    }
  }, 60_000);

  it('explore: a down process with a restart left keeps its draws: restarting it from two positions gives two different processes', () => {
    const cli = lab('ring', 3, 'crash,restart', ['--states', '20000']);
    const setup = { ...cli.setup, symmetry: true };
    const worlds: World[] = [];
    search(setup, { ...cli.limits, onWorld: (w) => void worlds.push(w) }, clock);
    const found = downWithDraws(worlds.filter((w) => w.used.restart < setup.budget.restart));
    expect(found).not.toBeNull();
    const [w, i] = found!;
    const node = setup.ids[i]!;
    const a = move(setup, w, { kind: 'restart', node });
    const b = move(setup, forget(w, i), { kind: 'restart', node });
    // Its new election id comes from its random stream: the position is read, so not merged.
    expect(a.procs[i]!.hash).not.toBe(b.procs[i]!.hash);
    expect(fingerprint(a)).not.toBe(fingerprint(b));
  }, 60_000);

  it('explore: identical events in flight are one multiset: the order pending events are kept in and their ids do not split a world', () => {
    const cli = lab('bully', 4, '');
    const worlds = worldsOf(cli.setup, cli.limits);
    /** Two different messages on one link, the older first. */
    const pairOf = (x: World): [Pending, Pending] | null => {
      for (const p of x.pending)
        for (const q of x.pending)
          if (
            p.kind === 'deliver' &&
            q.kind === 'deliver' &&
            p.id < q.id &&
            p.from === q.from &&
            p.to === q.to &&
            p.sig !== q.sig
          )
            return [p, q];
      return null;
    };
    const w = worlds.find((x) => pairOf(x) !== null)!;
    expect(w).toBeDefined();
    const shuffled: World = {
      ...w,
      pending: [...w.pending].reverse().map((p, k) => ({ ...p, id: 1000 - k })),
      nextId: 2000,
    };
    expect(fingerprint(shuffled)).toBe(fingerprint(w));
    // But two different messages swapping places in their link's queue make another world (links are FIFO).
    const [m, n] = pairOf(w)!;
    const swapped: World = {
      ...w,
      pending: w.pending.map((p) =>
        p === m ? { ...p, id: n!.id } : p === n ? { ...p, id: m!.id } : p,
      ),
    };
    expect(fingerprint(swapped)).not.toBe(fingerprint(w));
  }, 60_000);

  it('explore: the CLI switches symmetry with --symmetry on|off (on by default)', () => {
    expect(parseExploreCli([]).setup.symmetry).toBe(true);
    expect(parseExploreCli(['--symmetry', 'off']).setup.symmetry).toBe(false);
    expect(() => parseExploreCli(['--symmetry', 'maybe'])).toThrow(/--symmetry/);
  });
});
