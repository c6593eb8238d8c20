// A student's lab session as her tab keeps it (sessionStorage, per tab): the resume token of each
// id she joined, and which id of a lab she joined last. The challenge page sends that session
// with her submission, so the relay can check it and show the name she joined with as verified.
// Pure over a store (sessionStorage, or a test's own).
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { SubmitSession } from '@shared/challenges/challenge-schema.ts';

/** What the module reads and writes of sessionStorage (tests pass a Map's). */
interface TabStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function resumeKey(lab: string, id: ProcessId): string {
  return `election-lab:resume:${lab}:${id}`;
}

const lastKey = (lab: string) => `election-lab:session:${lab}`;

/** She joined `lab` as `id`: its resume token, and that this id is her session in the lab. */
export function rememberJoin(storage: TabStore, lab: string, id: ProcessId, resume: string): void {
  storage.setItem(resumeKey(lab, id), resume);
  storage.setItem(lastKey(lab), String(id));
}

/** Her session in `lab`: the id she joined last and its resume token; null when she has none. */
export function labSession(storage: TabStore, lab: string): SubmitSession | null {
  const id = Number(storage.getItem(lastKey(lab)) ?? NaN);
  if (!Number.isInteger(id) || id < 0) return null;
  const resume = storage.getItem(resumeKey(lab, id));
  return resume ? { id, resume } : null;
}
