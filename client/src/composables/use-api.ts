// The relay's REST API, in one place: every path the browser calls is listed here. Answers are
// values ({ ok, data } or { ok: false, error }), never exceptions, so views show failures as
// state. Instructor calls carry the token as `Authorization: Bearer`.
import { ref, type Ref } from 'vue';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type {
  CreateLab,
  FabricPatch,
  Play,
  PlayPatch,
  StepRequest,
  UpdateLab,
} from '@shared/protocol/lab-config.ts';
import type { InFlightInfo, LabSnapshot, LabStats } from '@shared/protocol/frames.ts';
import type { LessonAction } from '@shared/lessons/lesson-class.ts';
import type { LessonView } from '@shared/lessons/lesson-api.ts';
import type { Lesson, LessonStep } from '@shared/lessons/lesson-schema.ts';
import type { Challenge, Submission, SubmitSession } from '@shared/challenges/challenge-schema.ts';
import type { ChallengeView } from '@shared/challenges/challenge-api.ts';

/** A lesson as GET /api/lessons shows it without the token: no set-ups, runs or reveals. */
export type LessonSummary = Omit<Lesson, 'steps'> & {
  steps: Pick<LessonStep, 'title' | 'question'>[];
};

export type ApiResult<T> =
  { ok: true; data: T } | { ok: false; status: number; code: string; message: string };

/** GET /api/labs, one entry per lab. */
export interface LabSummary {
  name: string;
  algorithm: string;
  size: number;
  /** Null for a lab another relay of a cluster owns (the directory knows its settings only). */
  processes: { up: number; crashed: number; absent: number } | null;
  paused: boolean | null;
  now: number | null;
  /** In a cluster: the owning relay's id and public address. */
  owner?: string | null;
  url?: string | null;
}

export async function request<T>(
  method: string,
  path: string,
  opts: { body?: unknown; token?: string | null; signal?: AbortSignal } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  try {
    // A cluster answers for a lab owned elsewhere with a redirect; the page itself moves there
    // (use-cluster.ts), so a call is not sent across origins after it.
    const res = await fetch(path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      redirect: 'manual',
    });
    if (res.type === 'opaqueredirect')
      return {
        ok: false,
        status: 307,
        code: 'MOVED',
        message: 'This lab lives on another relay; moving there',
      };
    const text = await res.text();
    const json: unknown = text ? safeParse(text) : null;
    if (!res.ok) {
      // The body is the protocol's error frame (shared/protocol/errors.ts).
      const e = (json ?? {}) as { code?: string; message?: string; details?: string[] };
      const details = e.details?.length ? ` (${e.details.join('; ')})` : '';
      return {
        ok: false,
        status: res.status,
        code: e.code ?? `HTTP_${res.status}`,
        message: (e.message ?? res.statusText) + details,
      };
    }
    return { ok: true, data: json as T };
  } catch (e) {
    if ((e as Error).name === 'AbortError')
      return { ok: false, status: 0, code: 'ABORTED', message: 'Request cancelled' };
    return { ok: false, status: 0, code: 'NETWORK', message: 'Cannot reach the relay' };
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const enc = encodeURIComponent;

/** A text answer (a trace file), or the relay's error. */
async function textOf(
  path: string,
  signal?: AbortSignal,
  token?: string | null,
): Promise<ApiResult<string>> {
  try {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const res = await fetch(path, { signal, redirect: 'manual', headers });
    if (res.type === 'opaqueredirect')
      return {
        ok: false,
        status: 307,
        code: 'MOVED',
        message: 'This lab lives on another relay; moving there',
      };
    if (!res.ok) {
      const e = safeParse(await res.text()) as { code?: string; message?: string } | null;
      return {
        ok: false,
        status: res.status,
        code: e?.code ?? `HTTP_${res.status}`,
        message: e?.message ?? res.statusText,
      };
    }
    return { ok: true, data: await res.text() };
  } catch (e) {
    if ((e as Error).name === 'AbortError')
      return { ok: false, status: 0, code: 'ABORTED', message: 'Request cancelled' };
    return { ok: false, status: 0, code: 'NETWORK', message: 'Cannot reach the relay' };
  }
}

/** Read-only calls anyone may make (the dashboard, the join page). */
export const publicApi = {
  labs: () => request<LabSummary[]>('GET', '/api/labs'),
  snapshot: (lab: string) => request<LabSnapshot>('GET', `/api/labs/${enc(lab)}`),
  /** `links`: how many of the busiest links to include (0: none, the dashboard does not draw them). */
  stats: (lab: string, links?: number) =>
    request<LabStats>(
      'GET',
      `/api/labs/${enc(lab)}/stats${links === undefined ? '' : `?links=${links}`}`,
    ),
  /** The whole trace as JSON Lines text (for replay). */
  traceText: (lab: string, signal?: AbortSignal) => textOf(`/api/labs/${enc(lab)}/trace`, signal),
  /** The failing run a student's latest grade carried (the class board's link to replay). */
  gradeTraceText: (lab: string, id: number) =>
    textOf(`/api/labs/${enc(lab)}/processes/${id}/grade-trace`),
  /** The shipped lessons (lessons/*.json: without the token, each step's title and question only) and the files the relay refused. */
  lessons: () =>
    request<{ lessons: LessonSummary[]; refused: { file: string; errors: string[] }[] }>(
      'GET',
      '/api/lessons',
    ),
  /** The lab's lesson as the class sees it (null: it runs none); with the token, each answer by id as well. */
  lesson: (lab: string, token?: string | null) =>
    request<LessonView | null>('GET', `/api/labs/${enc(lab)}/lesson`, { token: token ?? null }),
  /** The lesson step's run as a trace file (from the reveal on; with the token, once it ran). */
  /** Whether the demo loop drives the lab (checked with DemoStatusSchema by use-demo.ts). */
  demo: (lab: string) => request<unknown>('GET', `/api/labs/${enc(lab)}/demo`),
  lessonTraceText: (lab: string) => textOf(`/api/labs/${enc(lab)}/lesson/trace`),
  /** The shipped "break it" challenges. */
  challenges: () =>
    request<{ challenges: Challenge[]; refused: { file: string; errors: string[] }[] }>(
      'GET',
      '/api/challenges',
    ),
  /** The lab's open challenge and its board (null: none open). */
  challenge: (lab: string) =>
    request<ChallengeView | null>('GET', `/api/labs/${enc(lab)}/challenge`),
  /** Her run for the relay to re-run: accepted with her rank, or refused with the reason. */
  /** With her lab session (the join page's process) her name is the one she joined with, verified. */
  submitChallenge: (lab: string, name: string, submission: Submission, session?: SubmitSession) =>
    request<{ accepted: true; faults: number; at: number; rank: number }>(
      'POST',
      `/api/labs/${enc(lab)}/challenge/submissions`,
      { body: { name, submission, ...(session ? { session } : {}) } },
    ),
  /** A board entry's run, re-run by the relay, as a trace file (the instructor's replay). */
  challengeTraceText: (lab: string, rank: number, token: string | null) =>
    textOf(`/api/labs/${enc(lab)}/challenge/board/${rank}/trace`, undefined, token),
  traceUrl: (lab: string, format: 'jsonl' | 'shiviz') =>
    `/api/labs/${enc(lab)}/trace?format=${format}`,
};

/** The instructor's calls: every one carries the token. `busy` and `lastError` are for the panel. */
export function useInstructorApi(token: Ref<string | null>) {
  const busy = ref(0);
  const lastError = ref<string | null>(null);

  async function call<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
    busy.value++;
    const res = await request<T>(method, path, { body, token: token.value });
    busy.value--;
    lastError.value = res.ok ? null : `${res.message} (${res.code})`;
    return res;
  }

  /**
   * A read the page makes by itself (the held list, twice a second while paused): it neither
   * disables the panel's buttons nor replaces the answer to her last action. Counted in `busy`,
   * it disabled every button for most of each half second on a loaded machine, so a click on
   * Resume could land on a disabled button and do nothing.
   */
  function read<T>(path: string): Promise<ApiResult<T>> {
    return request<T>('GET', path, { token: token.value });
  }

  return {
    busy,
    lastError,
    ...labCalls(call),
    ...processCalls(call, read),
    ...classCalls(call),
    /** Downloads go through fetch so the token travels in a header, never in a link. */
    async download(name: string, format: 'jsonl' | 'shiviz'): Promise<ApiResult<Blob>> {
      busy.value++;
      try {
        return await fetchBlob(publicApi.traceUrl(name, format), token.value);
      } finally {
        busy.value--;
      }
    },
  };
}

type Call = <T>(method: string, path: string, body?: unknown) => Promise<ApiResult<T>>;
const labPath = (name: string) => `/api/labs/${enc(name)}`;

/** A lab's settings: create, update, delete, the network, play, partitions, bots, reset. */
function labCalls(call: Call) {
  return {
    createLab: (body: CreateLab) => call<LabSnapshot>('POST', '/api/labs', body),
    updateLab: (name: string, body: UpdateLab) => call<LabSnapshot>('PUT', labPath(name), body),
    deleteLab: (name: string) => call<unknown>('DELETE', labPath(name)),
    setFabric: (name: string, body: FabricPatch) =>
      call<unknown>('PUT', `${labPath(name)}/fabric`, body),
    setPlay: (name: string, body: PlayPatch) => call<Play>('PUT', `${labPath(name)}/play`, body),
    partition: (name: string, groups: ProcessId[][]) =>
      call<unknown>('POST', `${labPath(name)}/partition`, { groups }),
    heal: (name: string) => call<unknown>('DELETE', `${labPath(name)}/partition`),
    addBots: (name: string, count: number) =>
      call<{
        requested: number;
        started: ProcessId[];
        refused: { index: number; code: string; message: string }[];
      }>('POST', `${labPath(name)}/bots`, { count }),
    removeBots: (name: string) =>
      call<{ lab: string; stopped: ProcessId[] | number }>('DELETE', `${labPath(name)}/bots`),
    reset: (name: string) => call<unknown>('POST', `${labPath(name)}/reset`),
    restartJob: (name: string) =>
      call<{ coordinator: ProcessId | null }>('POST', `${labPath(name)}/job/restart`),
  };
}

/** Its processes and its messages: crash, recover, pause, elect; hold, step and list the held. */
function processCalls(call: Call, read: <T>(path: string) => Promise<ApiResult<T>>) {
  const proc = (name: string, id: ProcessId, what: string) =>
    call<unknown>('POST', `${labPath(name)}/processes/${id}/${what}`);
  return {
    crash: (name: string, id: ProcessId) => proc(name, id, 'crash'),
    recover: (name: string, id: ProcessId) => proc(name, id, 'recover'),
    pauseProcess: (name: string, id: ProcessId) => proc(name, id, 'pause'),
    resumeProcess: (name: string, id: ProcessId) => proc(name, id, 'resume'),
    elect: (name: string, id: ProcessId) => proc(name, id, 'elect'),
    pause: (name: string) => call<unknown>('POST', `${labPath(name)}/pause`),
    resume: (name: string) => call<unknown>('POST', `${labPath(name)}/resume`),
    step: (name: string, body: StepRequest) => call<unknown>('POST', `${labPath(name)}/step`, body),
    inFlight: (name: string) =>
      read<{ paused: boolean; total: number; messages: InFlightInfo[] }>(
        `${labPath(name)}/inflight?limit=200`,
      ),
  };
}

/** What the class does together: lessons, challenges, the demo loop. */
function classCalls(call: Call) {
  return {
    beginLesson: (name: string, lesson: string) =>
      call<LessonView>('POST', `${labPath(name)}/lesson`, { lesson }),
    openChallenge: (name: string, challenge: string) =>
      call<ChallengeView>('POST', `${labPath(name)}/challenge`, { challenge }),
    closeChallenge: (name: string) => call<unknown>('DELETE', `${labPath(name)}/challenge`),
    /** The board's entry `rank` replayed in the live lab (its progress: the view's `live`). */
    replayLive: (name: string, rank: number) =>
      call<ChallengeView>('POST', `${labPath(name)}/challenge/board/${rank}/live`),
    stopDemo: (name: string) => call<unknown>('DELETE', `${labPath(name)}/demo`),
    lessonAction: (name: string, action: LessonAction) =>
      call<LessonView>('POST', `${labPath(name)}/lesson/${action}`),
  };
}

/** A file from the relay, the token in a header. */
async function fetchBlob(path: string, token: string | null): Promise<ApiResult<Blob>> {
  try {
    const res = await fetch(path, {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    if (!res.ok)
      return { ok: false, status: res.status, code: 'HTTP_' + res.status, message: res.statusText };
    return { ok: true, data: await res.blob() };
  } catch {
    return { ok: false, status: 0, code: 'NETWORK', message: 'Cannot reach the relay' };
  }
}

export type InstructorApi = ReturnType<typeof useInstructorApi>;
