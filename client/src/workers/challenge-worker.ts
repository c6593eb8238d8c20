// Runs the student's schedule off the page's thread: the same simulator and judge the relay uses
// (shared/challenges/challenge-verify.ts), so what she sees reached is what the relay re-runs.
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import { runChallenge, type ChallengeRun } from '@shared/challenges/challenge-verify.ts';

export type ChallengeRequest = { challenge: Challenge; seed: number; schedule: Schedule };
export type ChallengeReply =
  { kind: 'run'; run: ChallengeRun; ms: number } | { kind: 'error'; message: string };

// The worker's global scope, typed by what is used (the app's tsconfig has DOM types, not WebWorker).
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ChallengeRequest>) => void) | null;
  postMessage(m: ChallengeReply): void;
};

scope.onmessage = (e) => {
  try {
    const t0 = performance.now();
    const run = runChallenge(e.data.challenge, e.data.seed, e.data.schedule);
    scope.postMessage({ kind: 'run', run, ms: Math.round(performance.now() - t0) });
  } catch (err) {
    scope.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
