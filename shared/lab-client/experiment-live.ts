// One experiment run against a running relay (`npm run experiment -- --live URL`): the same
// setting as in the simulator, played by the relay's own bots over real sockets and timers.
// A fresh lab of N bots elects its first coordinator; that coordinator is crashed, one process
// is told to elect, and the relay's trace gives the messages sent from then on, the time until
// every live process settled, and the final reports for the properties.
import { DEFAULT_TIMING, type ProcessId, type Report } from '../algorithms/algorithm.ts';
import type { RunParams, RunRow } from '../experiments/experiment.ts';
import { checkAgreement, checkSafety } from '../analysis/properties.ts';
import type { ProcessInfo } from '../protocol/frames.ts';
import { parseTraceFile } from '../protocol/trace-file.ts';
import { finalState } from '../analysis/replay.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';

export interface LiveDeps {
  /** An authenticated REST call to the relay (path from `/api`). */
  api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; text: string }>;
  sleep(ms: number): Promise<void>;
  clock(): number;
}

/** fetch-based deps for a relay at `url` with the instructor `token`. */
export function fetchDeps(url: string, token: string): LiveDeps {
  return {
    async api(method, path, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(url.replace(/\/$/, '') + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // JSON Lines (the trace) stays text
      }
      return { status: res.status, body: parsed, text };
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    clock: () => performance.now(),
  };
}

const POLL_MS = 50;
/**
 * M on a live relay: at least 100 ms, and T. In the simulator a hop takes exactly T; here the
 * relay's timers and the bots' event loops add milliseconds to each hop, and a loaded machine
 * stalls for hundreds. With the simulator's M = 10 ms an OK sent back at once reached its elector
 * after UB = 2T + M (seen: 2,015 ms against 2,010 at T = 1 s; and 527 ms for a 250 ms hop during
 * a stall), and the elector declared as well: 6 COORDINATORs where the documents count N - 2 = 3.
 */
const liveProcessingMs = (T: number): number => Math.max(100, T);

export async function runLive(p: RunParams, deps: LiveDeps, labName: string): Promise<RunRow> {
  const started = deps.clock();
  const T = p.delay + p.jitter;
  const ids = Array.from({ length: p.n }, (_, i) => i);
  const lab = `/api/labs/${labName}`;
  const expect = async (r: Promise<{ status: number; text: string }>, what: string) => {
    const out = await r;
    if (out.status >= 300) throw new Error(`${what}: HTTP ${out.status} ${out.text.slice(0, 200)}`);
    return out;
  };
  await expect(
    deps.api('POST', '/api/labs', {
      name: labName,
      algorithm: p.algorithm,
      ids,
      detector: p.detector,
      timing: { ...DEFAULT_TIMING, transmission: T, processing: liveProcessingMs(T) },
      fabric: { link: { delay: p.delay, jitter: p.jitter } },
      seed: p.seed,
    }),
    'create lab',
  );
  try {
    await expect(deps.api('POST', `${lab}/bots`, { count: p.n, ids }), 'start bots');
    const first = await firstCoordinator(p, deps, lab, ids);
    if (first === null) throw new Error('the lab did not agree on a first coordinator within 60 s');
    if (p.drop > 0)
      await expect(deps.api('PUT', `${lab}/fabric`, { link: { loss: p.drop } }), 'set loss');
    await expect(deps.api('POST', `${lab}/processes/${first.coordinator}/crash`), 'crash');
    const live = ids.filter((id) => id !== first.coordinator);
    const initiator = pickInitiator(p, live, first.reports);
    await deps.sleep(2 * T);
    await expect(deps.api('POST', `${lab}/processes/${initiator}/elect`), 'elect');
    const settled = await waitSettled(deps, lab, live, Math.max(10_000, 40 * p.n * T), 3 * T + 200);
    const trace = await expect(deps.api('GET', `${lab}/trace`), 'trace');
    return {
      ...measure(p, trace.text, initiator, settled !== null),
      wallMs: deps.clock() - started,
    };
  } finally {
    await deps.api('DELETE', `${lab}/bots`).catch(() => undefined);
    await deps.api('DELETE', lab).catch(() => undefined);
  }
}

/** The processes of a lab snapshot (GET /api/labs/:lab), or none if the answer is not one. */
function processesOf(body: unknown): ProcessInfo[] {
  const list = (body as { processes?: unknown } | null)?.processes;
  return Array.isArray(list) ? (list as ProcessInfo[]) : [];
}

/**
 * Bots join one by one, so the start-up elections may miss processes that were not there yet;
 * and with detector 'none' Raft and the emergent pool never elect on their own. Once everyone is
 * up, the highest id (emergent: the highest slave) is asked to elect, until all agree.
 */
async function firstCoordinator(p: RunParams, deps: LiveDeps, lab: string, ids: ProcessId[]) {
  const until = deps.clock() + 60_000;
  while (deps.clock() < until) {
    const snap = await deps.api('GET', lab);
    const procs = processesOf(snap.body);
    const up = procs.filter((q) => ids.includes(q.id) && q.status === 'up' && q.report);
    if (up.length < ids.length) {
      await deps.sleep(POLL_MS);
      continue;
    }
    const settled = await waitSettled(deps, lab, ids, 1000);
    if (settled) return settled;
    const slaves = up.filter((q) => q.report!.role === 'slave').map((q) => q.id);
    const target = p.algorithm === 'emergent' ? slaves.at(-1) : ids.at(-1);
    if (target === undefined) {
      await deps.sleep(POLL_MS);
      continue;
    }
    await deps.api('POST', `${lab}/processes/${target}/elect`);
    const after = await waitSettled(deps, lab, ids, 15_000);
    if (after) return after;
  }
  return null;
}

/** Who detects: the case's choice among the live ids (emergent: among the slaves, as in formulas.ts). */
function pickInitiator(
  p: RunParams,
  live: ProcessId[],
  reports: Map<ProcessId, Report | null>,
): ProcessId {
  const pool =
    p.algorithm === 'emergent' ? live.filter((id) => reports.get(id)?.role === 'slave') : live;
  const from = pool.length ? pool : live;
  if (p.initiator !== undefined && from.includes(p.initiator)) return p.initiator;
  if (p.case === 'worst') return from[0]!;
  if (p.case === 'best') return from[from.length - 1]!;
  return from[Math.floor(createRng(deriveSeed(p.seed, -2))() * from.length)]!;
}

/**
 * Polls the lab until every listed process is up, reports, is not electing and all follow one
 * coordinator, unchanged for `steady` ms; null after `timeout` ms.
 */
async function waitSettled(
  deps: LiveDeps,
  lab: string,
  ids: ProcessId[],
  timeout: number,
  steady = 300,
) {
  const until = deps.clock() + timeout;
  let since: number | null = null;
  let last = '';
  while (deps.clock() < until) {
    const snap = await deps.api('GET', lab);
    const procs = processesOf(snap.body);
    const mine = ids.map((id) => procs.find((q) => q.id === id));
    const coords = new Set(
      mine.map((q) =>
        q?.status === 'up' && q.report && !q.report.electing ? q.report.coordinator : undefined,
      ),
    );
    const c = [...coords][0];
    const ok = coords.size === 1 && c !== undefined && c !== null;
    const key = JSON.stringify(mine.map((q) => q?.report ?? null));
    if (!ok || key !== last) since = ok ? deps.clock() : null;
    last = key;
    if (ok && since !== null && deps.clock() - since >= steady)
      return {
        coordinator: c as ProcessId,
        reports: new Map(mine.map((q, i) => [ids[i]!, q?.report ?? null])),
      };
    await deps.sleep(POLL_MS);
  }
  return null;
}

/** Counts and times from the relay's trace, from the `elect` event on. */
function measure(
  p: RunParams,
  traceText: string,
  initiator: ProcessId,
  settled: boolean,
): Omit<RunRow, 'wallMs'> {
  const parsed = parseTraceFile(traceText);
  if (!parsed.ok)
    throw new Error(`the relay's trace did not parse: ${parsed.problems[0]?.message}`);
  const events = parsed.trace.events;
  let from = -1;
  for (let i = events.length - 1; i >= 0 && from < 0; i--) {
    const e = events[i]!;
    if (e.kind === 'elect' && e.node === initiator) from = i;
  }
  const electAt = from >= 0 ? events[from]!.t : 0;
  const messages: Record<string, number> = {};
  let dropped = 0;
  const lastReport = new Map<ProcessId, Report>();
  let settledAt = electAt;
  for (const [i, e] of events.entries()) {
    if (e.kind === 'report') {
      const prev = lastReport.get(e.node);
      if (
        i > from &&
        (!prev || prev.coordinator !== e.report.coordinator || prev.electing !== e.report.electing)
      )
        settledAt = Math.max(settledAt, e.t);
      lastReport.set(e.node, e.report);
    }
    if (i <= from) continue;
    if (e.kind === 'send') messages[e.type] = (messages[e.type] ?? 0) + 1;
    if (e.kind === 'drop') dropped++;
  }
  const end = finalState(parsed.trace);
  const live = end.processes.filter((q) => q.status === 'up').map((q) => q.id);
  const reports = Object.fromEntries(end.processes.map((q) => [q.id, q.report]));
  const safety = checkSafety(live, reports);
  const agreement = settled
    ? checkAgreement(p.algorithm, live, reports)
    : { message: 'did not settle in time' };
  const coords = new Set(Object.values(end.coordinators));
  const T = p.delay + p.jitter;
  const electionTime = settled ? settledAt - electAt : null;
  return {
    ...p,
    initiator,
    messages,
    total: Object.values(messages).reduce((a, b) => a + b, 0),
    dropped,
    electionTime,
    electionTimeT: electionTime === null || T === 0 ? null : electionTime / T,
    coordinator: coords.size === 1 ? ([...coords][0] ?? null) : null,
    agreed: agreement === null,
    safe: safety === null,
    violation: safety?.message ?? agreement?.message ?? null,
    events: events.length,
    truncated: false,
  };
}
