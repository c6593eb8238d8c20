// The explorer's reductions held against plain search: partial-order reduction by sleep sets
// (shared/explore/sleep.ts) must visit every world plain breadth-first search visits, so it
// finds the same violations and the same quiet outcomes, at the same depth, with fewer
// transitions; and the 64-bit visited set (shared/explore/key.ts) must keep every distinct
// fingerprint. docs/CORE_SPEED.md, "What each reduction assumes".
import { describe, expect, it } from 'vitest';
import { enabled, move } from '@shared/explore/engine.ts';
import { collisionBound, createKeyer, SeenSet } from '@shared/explore/key.ts';
import { search } from '@shared/explore/search.ts';
import { asleepEntry, quietAfter } from '@shared/explore/sleep.ts';
import { derived, type World } from '@shared/explore/world.ts';
import { parseExploreCli } from '../../scripts/explore.ts';
import { clock, lab, LABS, visit } from '../helpers/explore-labs.ts';

describe('explore: partial-order reduction', () => {
  it('explore: sleep sets visit every world plain search visits, so the same violations and quiet outcomes, at the same depth, with fewer transitions', () => {
    let plainTransitions = 0;
    let porTransitions = 0;
    for (const [algorithm, nodes, faults] of LABS) {
      const cli = lab(algorithm, nodes, faults);
      const plain = visit(cli, false);
      const reduced = visit(cli, true);
      const what = `${algorithm} ${nodes} ${faults}`;
      expect(plain.result.exhaustive, what).toBe(true);
      expect(reduced.result.exhaustive, what).toBe(true);
      expect(reduced.keys, what).toEqual(plain.keys);
      expect(reduced.violations, what).toEqual(plain.violations);
      expect(reduced.quiet, what).toEqual(plain.quiet);
      expect(reduced.result.depth, what).toBe(plain.result.depth);
      expect(reduced.result.transitions, what).toBeLessThanOrEqual(plain.result.transitions);
      plainTransitions += plain.result.transitions;
      porTransitions += reduced.result.transitions;
      // Where several processes are stepped at one instant (Bully's election waves, no fault),
      // a good share of the orders is skipped.
      if (what === 'bully 4 ')
        expect(reduced.result.transitions).toBeLessThan(plain.result.transitions * 0.8);
    }
    expect(porTransitions).toBeLessThan(plainTransitions);
  }, 120_000);

  it('explore: two firings a sleep set treats as independent reach one world in either order (another process, the same instant, no report changed)', () => {
    const cli = lab('bully', 4, 'crash');
    const { setup } = cli;
    const key = createKeyer();
    const fingerprint = (w: World) => `${key(w)}:${key.hi}`;
    const index = derived(setup).index;
    const worlds: World[] = [];
    search(setup, { ...cli.limits, por: false, onWorld: (w) => void worlds.push(w) }, clock);
    let pairs = 0;
    for (const w of worlds.slice(0, 3000)) {
      const acts = enabled(setup, w);
      for (const a of acts)
        for (const b of acts) {
          const ea = asleepEntry(w, a);
          const eb = asleepEntry(w, b);
          if (!ea || !eb || ea.node === eb.node || ea.at !== eb.at) continue;
          const wa = move(setup, w, a);
          const wb = move(setup, w, b);
          if (!quietAfter(setup, w, wa, index.get(ea.node)!)) continue;
          if (!quietAfter(setup, w, wb, index.get(eb.node)!)) continue;
          // After either, the other is still enabled and fires at the same instant (as early as it can).
          const idB = (b as { id: number }).id;
          const idA = (a as { id: number }).id;
          expect(enabled(setup, wa).some((x) => x.kind === 'fire' && x.id === idB)).toBe(true);
          expect(enabled(setup, wb).some((x) => x.kind === 'fire' && x.id === idA)).toBe(true);
          const ab = move(setup, wa, { kind: 'fire', id: idB, at: 'early' });
          const ba = move(setup, wb, { kind: 'fire', id: idA, at: 'early' });
          expect(fingerprint(ab)).toBe(fingerprint(ba));
          pairs++;
        }
    }
    expect(pairs).toBeGreaterThan(100);
  }, 60_000);

  it('explore: with sleep sets the first violation is the same, with a schedule as short (Bully under a slow link, 000: UB = 2T + M)', () => {
    const cli = parseExploreCli(['--algorithm', 'bully', '--nodes', '4', '--faults', 'slow']);
    const plain = search(cli.setup, { ...cli.limits, por: false }, clock);
    const reduced = search(cli.setup, { ...cli.limits, por: true }, clock);
    expect(plain.finding).not.toBeNull();
    expect(reduced.finding!.violation).toEqual(plain.finding!.violation);
    expect(reduced.finding!.actions).toHaveLength(plain.finding!.actions.length);
    expect(reduced.finding!.by).toBe('bfs');
  }, 60_000);

  it('explore: the CLI switches partial-order reduction with --por on|off (on by default)', () => {
    expect(parseExploreCli([]).limits.por).toBe(true);
    expect(parseExploreCli(['--por', 'off']).limits.por).toBe(false);
    expect(parseExploreCli(['--por', 'on']).limits.por).toBe(true);
    expect(() => parseExploreCli(['--por', 'maybe'])).toThrow(/--por/);
  });
});

describe('explore: the 64-bit visited set', () => {
  it('explore: the visited set keeps every distinct fingerprint through its growth, and tells two apart that differ only in the high 32 bits', () => {
    const seen = new SeenSet();
    const n = 200_000;
    // Fingerprints 1..n (never (0, 0), which the set stores as (1, 0)).
    let added = 0;
    for (let i = 1; i <= n; i++) if (seen.add(Math.imul(i, 2654435761) >>> 0, i & 7)) added++;
    expect(added).toBe(n);
    let again = 0;
    for (let i = 1; i <= n; i += 997) if (seen.add(Math.imul(i, 2654435761) >>> 0, i & 7)) again++;
    expect(again).toBe(0);
    expect(seen.add(5, 1)).toBe(true);
    expect(seen.add(5, 2)).toBe(true);
    expect(seen.add(5, 2)).toBe(false);
    expect(seen.size).toBe(n + 2);
    // One Uint32Array of lane pairs, at most half full: 16 bytes a world at most, no object per world.
    expect(seen.bytes).toBeLessThanOrEqual(16 * 2 * seen.size);
  });

  it('explore: the report bounds the chance of a fingerprint collision by n^2 / 2^65', () => {
    expect(collisionBound(1_000_000)).toBeCloseTo(1e12 / 2 ** 65, 20);
    expect(collisionBound(0)).toBe(0);
    expect(collisionBound(1e12)).toBe(1);
    const cli = lab('bully', 3, '');
    const r = search(cli.setup, cli.limits, clock);
    expect(r.collisionBound).toBe(collisionBound(r.states));
  });
});
