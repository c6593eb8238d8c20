// A lab's "break it" challenge as a page sees it (issue 28, item 6): the open challenge and its
// board, polled every two seconds; the student's private run in a Web Worker (the simulator the
// relay re-runs with); her submission; and the instructor's open/close. Stale answers are
// dropped by version counters; failures are state, never thrown.
import { onScopeDispose, ref, shallowRef, watch, type Ref } from 'vue';
import type { ChallengeView } from '@shared/challenges/challenge-api.ts';
import type { Challenge, Schedule } from '@shared/challenges/challenge-schema.ts';
import type { ChallengeRun } from '@shared/challenges/challenge-verify.ts';
import type { ChallengeReply, ChallengeRequest } from '../workers/challenge-worker.ts';
import { labSession } from '../utils/lab-session.ts';
import { publicApi, useInstructorApi } from './use-api.ts';

const POLL_MS = 2000;

export function useChallenge(lab: Ref<string>) {
  const view = shallowRef<ChallengeView | null>(null);
  const none = ref(false);
  const error = ref<string | null>(null);
  let version = 0;
  async function refresh(): Promise<void> {
    const v = ++version;
    const res = await publicApi.challenge(lab.value);
    if (v !== version) return;
    if (res.ok) {
      view.value = res.data;
      none.value = res.data === null;
      error.value = null;
    } else error.value = res.message;
  }
  void refresh();
  const timer = setInterval(() => void refresh(), POLL_MS);
  onScopeDispose(() => clearInterval(timer));
  return { view, none, error, refresh };
}

/** Her private lab: each run in a fresh worker; a run still going when she runs again is dropped. */
export function useChallengeRun() {
  const run = shallowRef<ChallengeRun | null>(null);
  const running = ref(false);
  const ms = ref<number | null>(null);
  const error = ref<string | null>(null);
  let worker: Worker | null = null;

  function stop(): void {
    worker?.terminate();
    worker = null;
    running.value = false;
  }

  function start(challenge: Challenge, seed: number, schedule: Schedule): void {
    stop();
    running.value = true;
    error.value = null;
    const w = new Worker(new URL('../workers/challenge-worker.ts', import.meta.url), {
      type: 'module',
    });
    worker = w;
    w.onmessage = (e: MessageEvent<ChallengeReply>) => {
      if (worker !== w) return;
      if (e.data.kind === 'run') {
        run.value = e.data.run;
        ms.value = e.data.ms;
      } else error.value = e.data.message;
      stop();
    };
    w.onerror = () => {
      if (worker !== w) return;
      error.value = 'The simulator worker failed to start';
      stop();
    };

    // Plain copies: a page's reactive proxies cannot cross to a worker.
    const request: ChallengeRequest = JSON.parse(JSON.stringify({ challenge, seed, schedule }));
    w.postMessage(request);
  }

  onScopeDispose(stop);
  return { run, running, ms, error, start };
}

/** Her submission: the relay's verdict, or why it refused, as a line to show. */
export function useChallengeSubmit(lab: Ref<string>) {
  const verdict = ref<string | null>(null);
  const accepted = ref<boolean | null>(null);
  const busy = ref(false);
  /** Her lab session in this tab, read when the page opens and again at each submission. */
  const session = shallowRef(labSession(sessionStorage, lab.value));
  async function submit(name: string, challenge: Challenge, seed: number, schedule: Schedule) {
    busy.value = true;
    session.value = labSession(sessionStorage, lab.value);
    const sub = { challenge: challenge.id, seed, setup: challenge.setup, schedule };
    let res = await publicApi.submitChallenge(lab.value, name, sub, session.value ?? undefined);
    // Her session ended (the id was taken by someone else, the relay restarted): her typed name, claimed.
    if (!res.ok && res.code === 'SESSION_REFUSED') {
      session.value = null;
      res = await publicApi.submitChallenge(lab.value, name, sub);
    }
    busy.value = false;
    accepted.value = res.ok;
    const under = session.value ? ' under the name you joined the lab with' : '';
    verdict.value = res.ok
      ? `Accepted${under}: the relay's run broke it with ${res.data.faults} fault${res.data.faults === 1 ? '' : 's'}; you are #${res.data.rank} on the board`
      : `Refused: ${res.message}`;
  }
  return { verdict, accepted, busy, session, submit };
}

/** The shipped challenges (GET /api/challenges), read once: the home page's list, the instructor's picker. */
export function useChallengeCatalog() {
  const catalog = shallowRef<Challenge[]>([]);
  const error = ref<string | null>(null);
  void publicApi.challenges().then((res) => {
    if (res.ok) catalog.value = res.data.challenges;
    else error.value = res.message;
  });
  return { catalog, error };
}

/** The instructor's challenge controls: pick a shipped challenge, open it, close it. */
export function useChallengeControl(lab: Ref<string>, token: Ref<string | null>) {
  const challenge = useChallenge(lab);
  const api = useInstructorApi(token);
  const { catalog, error } = useChallengeCatalog();
  const feedback = ref('');
  watch(error, (e) => {
    if (e) feedback.value = `Challenges: ${e}`;
  });
  async function open(id: string): Promise<void> {
    const res = await api.openChallenge(lab.value, id);
    feedback.value = res.ok ? `Challenge “${res.data.challenge.title}” is open` : res.message;
    if (res.ok) challenge.view.value = res.data;
  }
  async function close(): Promise<void> {
    const res = await api.closeChallenge(lab.value);
    feedback.value = res.ok ? 'Challenge closed' : res.message;
    if (res.ok) challenge.view.value = null;
  }
  async function runLive(rank: number): Promise<void> {
    const res = await api.replayLive(lab.value, rank);
    feedback.value = res.ok
      ? `Entry #${rank} runs in the live lab: the dashboard shows it, the board says how it ends`
      : res.message;
    if (res.ok) challenge.view.value = res.data;
  }
  return { ...challenge, catalog, feedback, busy: api.busy, open, close, runLive };
}
