// Builds the whole relay (express, socket.io, raw WebSocket, the labs) on an http.Server without
// listening, after socket.io's createApplication: only server/main.ts listens, and tests bind
// 127.0.0.1 port 0. Everything with state hangs off the returned object; nothing is global.
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { ERRORS, errorFrame } from '@shared/protocol/errors.ts';
import { MAX_FRAME_BYTES } from '@shared/protocol/frames.ts';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Server as IoServer } from 'socket.io';
import type { AlgorithmName, AnyAlgorithm } from '@shared/algorithms/algorithm.ts';
import { createApi } from './http/api.ts';
import { Cluster, type ClusterOptions } from './cluster/cluster-member.ts';
import { ServerBots } from './lab/bots.ts';
import { preciseTimers, realClock, type Clock } from './clock/clock.ts';
import type { Conn } from './lab/conn.ts';
import { Counters } from './lab/counters.ts';
import { DemoLoops } from './lab/demo-loop.ts';
import { LabListHub } from './lab/lab-list.ts';
import { loadLessons } from './lab/lesson-catalog.ts';
import { LessonLiveRuns } from './lab/lesson-live.ts';
import { LiveScripts } from './lab/live-script.ts';
import { LessonRooms } from './lab/lesson-room.ts';
import { loadChallenges } from './lab/challenge-catalog.ts';
import { ChallengeRooms } from './lab/challenge-room.ts';
import {
  DEFAULT_NET_LIMITS,
  guardServer,
  requestOriginAllowed,
  type NetLimits,
} from './transport/net-guard.ts';
import { Labs } from './lab/labs.ts';
import type { ObserverOptions } from './lab/observers.ts';
import {
  AddressBuckets,
  DEFAULT_BYTE_LIMITS,
  DEFAULT_RATE_LIMITS,
  type ByteLimits,
  type RateLimits,
} from './lab/rate-limit.ts';
import { Session } from './lab/session.ts';
import { serveClient } from './http/static.ts';
import { createSocketIo } from './transport/transport-socketio.ts';
import { WsTransport } from './transport/transport-ws.ts';

export interface RelayOptions {
  dataDir: string;
  token: string;
  clock?: Clock;
  /** The built dashboard; null: none. Default: client/dist beside server/. */
  clientDir?: string | null;
  rateLimits?: RateLimits;
  /** Message bytes a second per address and per lab (rate-limit.ts). */
  byteLimits?: Partial<ByteLimits>;
  /** Labs with more ids keep Lamport clocks only (vector clocks cost O(ids) per message). */
  vectorLimit?: number;
  resumeGraceMs?: number;
  /** A raw WebSocket peer counts as overloaded past this many queued bytes. */
  maxBacklogBytes?: number;
  /** A socket.io peer counts as overloaded past this many queued packets. */
  maxBacklogFrames?: number;
  observers?: ObserverOptions;
  traceFlushMs?: number;
  heartbeatMs?: number;
  maxLabs?: number;
  /** See LabsOptions: a lab's trace cap and the disk budget of all traces. */
  traceMaxBytes?: number;
  diskBudgetBytes?: number;
  /** Bytes a lab's trace may have waiting for the disk before it refuses new messages (trace-store.ts). */
  traceMaxPendingBytes?: number;
  /** Test hook: every trace write first waits this long per MiB (a slow disk). */
  traceWriteMsPerMiB?: number;
  /** Server-side bots and their routes (default on). */
  bots?: boolean;
  /** The server-side bots' algorithms (default: the registry); tests pass one that throws. */
  botRegistry?: (name: AlgorithmName) => AnyAlgorithm;
  /** Per-IP connection cap, the first-request deadline, allowed browser origins (server/transport/net-guard.ts). */
  net?: Partial<NetLimits>;
  /** The lesson files' folder (default: lessons/ beside server/); a missing folder: no lessons. */
  lessonsDir?: string;
  /** The challenge files' folder (default: challenges/ beside server/); a missing folder: none. */
  challengesDir?: string;
  /** One relay of several sharing a Redis (docs/SCALING.md); absent: a lone relay with files on disk. */
  cluster?: Omit<ClusterOptions, 'onError'>;
  onError?: (err: unknown) => void;
}

export interface Relay {
  app: Express;
  server: HttpServer;
  io: IoServer;
  labs: Labs;
  counters: Counters;
  bots: ServerBots | null;
  /** The demo loops (server/lab/demo-loop.ts); server/demo-lab.ts starts the demo lab's. */
  demo: DemoLoops;
  cluster: Cluster | null;
  /** Each lab's lesson (server/lab/lesson-room.ts). */
  lessons: LessonRooms;
  /** Opens a server-side connection (in-process bots): frames go to `session`, replies to `conn`. */
  session(conn: Conn): Session;
  /** Stops accepting, disconnects everyone, writes every buffered trace line. */
  close(): Promise<void>;
}

/**
 * Hard cap on one socket message (and on one socket.io HTTP buffer): a frame up to this gets
 * FRAME_TOO_LARGE, a larger one closes the connection. Kept near the frame cap, so no client
 * makes the relay buffer megabytes (binary attachments included).
 */
const MAX_PAYLOAD = 4 * MAX_FRAME_BYTES;

export async function createRelay(opts: RelayOptions): Promise<Relay> {
  const clock = opts.clock ?? realClock;
  // The fabric's fine timer runs in a worker that takes tens of ms to start: start it now, not under the first held message.
  if (clock === realClock) preciseTimers().warm();
  const onError = opts.onError ?? ((err: unknown) => console.error('[relay]', err));
  const counters = new Counters();
  const byteLimits: ByteLimits = { ...DEFAULT_BYTE_LIMITS, ...opts.byteLimits };
  const cluster = opts.cluster ? await Cluster.connect({ ...opts.cluster, onError }) : null;
  const late: Late = { labList: null, lessonRooms: null, bots: null };
  const labs = createLabs(opts, { clock, counters, byteLimits, cluster, onError, late });
  // A lone relay opens every lab in its folder; a cluster member opens only the labs it leases.
  if (cluster) await cluster.start(labs);
  else await labs.loadAll();
  const { lessons, challenges, live } = loadRooms(opts, labs, counters, onError, late);
  const rateLimits = opts.rateLimits ?? DEFAULT_RATE_LIMITS;
  const locate = cluster ? (lab: string) => cluster.locate(lab) : undefined;
  const addressBuckets = new AddressBuckets(byteLimits.perAddress, () => clock.now());
  const newSession = (conn: Conn) =>
    new Session(conn, {
      labs,
      counters,
      clock,
      rateLimits,
      addressBuckets,
      onError,
      lessons: lessons.rooms,
      challenges: challenges.rooms,
      ...(locate ? { locate } : {}),
      ...(late.labList ? { labList: late.labList } : {}),
    });

  const { app, server, originOk } = createHttp(opts, counters);
  const { ws, io } = openTransports(server, opts, { newSession, counters, originOk, cluster });
  late.labList = new LabListHub(io, cluster !== null);

  const bots = opts.bots === false ? null : createBots(opts, labs, newSession);
  late.bots = bots;
  const demo = new DemoLoops(labs);
  const connections = () => ({ ws: ws.size, socketio: io.engine.clientsCount });
  app.use(
    '/api',
    createApi({
      labs,
      counters,
      token: opts.token,
      connections,
      onError,
      lessons,
      challenges,
      demo,
      ...(bots ? { bots } : {}),
      ...(cluster ? { cluster } : {}),
    }),
  );
  serveClient(app, clientDirOf(opts), locate);

  const close = closer(
    () => {
      demo.closeAll();
      live.closeAll();
      bots?.closeAll();
      ws.close();
    },
    async () => {
      await new Promise<void>((resolve) => io.close(() => resolve()));
      server.closeAllConnections();
      await labs.close();
      await lessons.rooms.flushed();
      await cluster?.close();
    },
  );
  const relay = { app, server, io, labs, counters, bots, demo, cluster };
  return { ...relay, lessons: lessons.rooms, session: newSession, close };
}

/** The express app on an http.Server, guarded: connection caps, and only allowed origins may change things. */
function createHttp(opts: RelayOptions, counters: Counters) {
  const app = express();
  app.disable('x-powered-by');
  const server = createServer(app);
  const net: NetLimits = { ...DEFAULT_NET_LIMITS, ...opts.net };
  guardServer(server, net, counters);
  // Browsers from other origins may not drive the relay (ALLOWED_ORIGINS); non-browsers send no Origin.
  const originOk = (req: IncomingMessage) => requestOriginAllowed(req, net.allowedOrigins);
  app.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || originOk(req))
      return next();
    counters.inc('ORIGIN_NOT_ALLOWED');
    const e = errorFrame('ORIGIN_NOT_ALLOWED');
    res.status(ERRORS.ORIGIN_NOT_ALLOWED.status).json(e);
  });
  return { app, server, originOk };
}

/**
 * Parts made after the labs that the labs' hooks and the lesson runner read when called: the lab
 * list (once the server exists), the lesson rooms (once the lessons are loaded), the bots (once
 * the sessions they need exist).
 */
interface Late {
  labList: LabListHub | null;
  lessonRooms: LessonRooms | null;
  bots: ServerBots | null;
}

interface LabsDeps {
  clock: Clock;
  counters: Counters;
  byteLimits: ByteLimits;
  cluster: Cluster | null;
  onError: (err: unknown) => void;
  late: Late;
}

/** The labs, with the relay's limits and trace options; a removed lab's lesson goes with it. */
function createLabs(opts: RelayOptions, d: LabsDeps): Labs {
  const { clock, counters, byteLimits, cluster, onError, late } = d;
  return new Labs({
    onChange: () => late.labList?.changed(),
    onGone: async (lab) => late.lessonRooms?.forget(lab),
    dataDir: opts.dataDir,
    clock,
    vectorLimit: opts.vectorLimit ?? 64,
    resumeGraceMs: opts.resumeGraceMs ?? 15_000,
    observers: { ...opts.observers, onDrop: (what) => counters.inc(what) },
    byteLimits: byteLimits.perLab,
    ...(opts.traceMaxPendingBytes !== undefined
      ? { traceMaxPendingBytes: opts.traceMaxPendingBytes }
      : {}),
    ...(opts.traceWriteMsPerMiB ? { traceWriteMsPerMiB: opts.traceWriteMsPerMiB } : {}),
    traceFlushMs: opts.traceFlushMs,
    maxLabs: opts.maxLabs,
    ...(opts.traceMaxBytes !== undefined ? { traceMaxBytes: opts.traceMaxBytes } : {}),
    ...(opts.diskBudgetBytes !== undefined ? { diskBudgetBytes: opts.diskBudgetBytes } : {}),
    onError,
    ...(cluster ? { cluster } : {}),
  });
}

/** The lesson and challenge files (a refused one told to onError) and each lab's room for them. */
function loadRooms(
  opts: RelayOptions,
  labs: Labs,
  counters: Counters,
  onError: (err: unknown) => void,
  late: Late,
) {
  const catalog = loadLessons(
    opts.lessonsDir ?? fileURLToPath(new URL('../lessons', import.meta.url)),
  );
  for (const r of catalog.refused)
    onError(new Error(`lesson file ${r.file} refused: ${r.errors.join('; ')}`));
  // Lesson steps and challenge replays run in the live lab, one runner for both, with the
  // relay's bots as they are when a run starts.
  const live = new LiveScripts({ labs, bots: () => late.bots, onError });
  const rooms = new LessonRooms({
    dataDir: opts.dataDir,
    onError,
    onTooLarge: () => counters.inc('lesson-state-too-large'),
    live: new LessonLiveRuns(live),
  });
  late.lessonRooms = rooms;
  const challengeCatalog = loadChallenges(
    opts.challengesDir ?? fileURLToPath(new URL('../challenges', import.meta.url)),
  );
  for (const r of challengeCatalog.refused)
    onError(new Error(`challenge file ${r.file} refused: ${r.errors.join('; ')}`));
  return {
    lessons: { catalog, rooms },
    challenges: { catalog: challengeCatalog, rooms: new ChallengeRooms(live) },
    live,
  };
}

interface TransportDeps {
  newSession: (conn: Conn) => Session;
  counters: Counters;
  originOk: (req: IncomingMessage) => boolean;
  cluster: Cluster | null;
}

/** The raw WebSocket at /ws and socket.io on `server`; any other upgrade is refused. */
function openTransports(server: HttpServer, opts: RelayOptions, d: TransportDeps) {
  const { newSession, counters, originOk, cluster } = d;
  const maxBacklogBytes = opts.maxBacklogBytes ?? 4 * 1024 * 1024;
  const ws = new WsTransport({
    newSession,
    maxBacklogBytes,
    maxPayload: MAX_PAYLOAD,
    heartbeatMs: opts.heartbeatMs ?? 30_000,
    onCutOff: () => counters.inc('cut-off'),
    onGone: (frames) => counters.inc('frames-to-gone-peer', frames),
  });
  const io = createSocketIo(server, {
    newSession,
    maxBacklogFrames: opts.maxBacklogFrames ?? 5000,
    maxBacklogBytes,
    maxPayload: MAX_PAYLOAD,
    allowRequest: originOk,
    onRefused: (what) => counters.inc(what),
    ...(cluster ? { adapter: cluster.socketIoAdapter() } : {}),
  });
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/ws') {
      if (!originOk(req)) {
        counters.inc('ORIGIN_NOT_ALLOWED');
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      return ws.handleUpgrade(req, socket, head);
    }
    // socket.io answers its own upgrades; anything else is refused.
    if (!path?.startsWith('/socket.io/')) socket.destroy();
  });
  return { ws, io };
}

/** Close once: stop what makes new work at once, then drain in order; a second call awaits the first. */
function closer(stop: () => void, drain: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () =>
    (closing ??= (async () => {
      stop();
      await drain();
    })());
}

/** The server-side bots, speaking through in-process sessions. */
function createBots(
  opts: RelayOptions,
  labs: Labs,
  newSession: (conn: Conn) => Session,
): ServerBots {
  return new ServerBots({
    labs,
    session: newSession,
    ...(opts.botRegistry ? { registry: opts.botRegistry } : {}),
  });
}

/** The built dashboard's folder: client/dist beside server/ unless told (null: none). */
function clientDirOf(opts: RelayOptions): string | null {
  return opts.clientDir === undefined
    ? fileURLToPath(new URL('../client/dist', import.meta.url))
    : opts.clientDir;
}
