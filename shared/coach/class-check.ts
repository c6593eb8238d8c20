// Issue 24's property of a simulated class (class-sim.ts), as one checker the tests and
// `npm run bench:class` share: the class agrees after the start election and after the
// coordinator's crash with no instructor action; nobody is stuck past 2 x UB; a student who
// made no mistake and clicked every hint within its deadline is never marked; and where the
// documents' formulas describe the run (Bully, and the active-list ring, whose every process
// circulates its own Elect as when all detect at once), every message type stays within the
// worst case plus what the mistakes explain: one election's worth per mistake, as the lab's
// algorithm holds an election one process starts in a settled class. Bully with the detector
// answers a stale ELECTION with OK only (N of a type); the active list's rule (a) draws every
// process in ("this is the first message sent or seen: ... send Elect(i)"): a whole election,
// the worst case again. A ring hop's ACK is the lab's plumbing, not 001's (rules.ts): it is not
// held to a formula (each answers one Elect or Elected received; a late one also makes its sender
// try the next process, one more hop and ACK).
import type { AlgorithmName } from '../algorithms/algorithm.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { isPlumbing } from './rules.ts';
import type { ClassResult, ClassSpec, PhaseResult } from './class-sim.ts';

const COUNTED: readonly AlgorithmName[] = ['bully', 'ring-active-list'];

/** The issue's classes: N from 4 to `maxN` (40), think 1 to up to 6 s, up to 10% of students with one mistake. */
export function propertySpec(algorithm: AlgorithmName, i: number, maxN = 40): ClassSpec {
  const random = createRng(deriveSeed(24, i));
  const students = 4 + Math.floor(random() * (maxN - 3));
  const think = [1, 1 + Math.round(random() * 50) / 10] as const;
  const mistakes = Math.floor(random() * (Math.floor(students / 10) + 1));
  return { algorithm, students, think, mistakes, scale: 100, seed: i + 1 };
}

/** What breaks the property in this run, in words; empty when it holds. */
export function classViolations(r: ClassResult): string[] {
  const out: string[] = [];
  const n = r.spec.students;
  const phase = (name: string, p: PhaseResult | null) => {
    if (!p || p.agreedAfter === null) return void out.push(`${name}: not agreed`);
    if (p.stuck.length) out.push(`${name}: stuck past 2 x UB: ${p.stuck.join(', ')}`);
    if (!COUNTED.includes(r.spec.algorithm)) return;
    for (const [type, worst] of Object.entries(p.worstCase)) {
      if (isPlumbing(r.spec.algorithm, type)) continue;
      const sent = p.messages[type] ?? 0;
      const each = r.spec.algorithm === 'ring-active-list' ? worst : n;
      if (sent > worst + r.spec.mistakes * each)
        out.push(
          `${name}: ${sent} ${type} against the worst case ${worst} + ${r.spec.mistakes} x ${each}`,
        );
    }
  };
  phase('start election', r.start);
  phase('after the crash', r.crash);
  for (const s of r.students)
    if (s.mistake === null && s.lateClicks === 0 && s.marks.length)
      out.push(
        `student ${s.id} followed every hint in time and was marked: ${s.marks.map((m) => `${m.rule} (${m.action})`).join('; ')}`,
      );
  return out;
}
