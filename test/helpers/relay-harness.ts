// Test harness for the relay: a real server on 127.0.0.1 port 0 with a temporary data folder,
// a REST helper, and frame clients over both transports (raw `ws` and socket.io-client) that
// record every frame they receive with its arrival time.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { ClientFrame, ServerFrame } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { createRelay, type Relay, type RelayOptions } from '../../server/relay.ts';

export const TOKEN = 'test-token-0123';

export interface Harness {
  relay: Relay;
  url: string;
  wsUrl: string;
  dataDir: string;
  api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    opts?: { token?: string | null },
  ): Promise<{ status: number; body: T; text: string }>;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export async function startRelay(
  opts: Partial<RelayOptions> & { dataDir?: string } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'relay-test-')));
  const relay = await createRelay({
    token: TOKEN,
    clientDir: null,
    traceFlushMs: 50,
    ...opts,
    dataDir,
  });
  await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
  const port = (relay.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    relay,
    url,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    dataDir,
    async api(method, path, body, o = {}) {
      const token = o.token === undefined ? TOKEN : o.token;
      const headers: Record<string, string> = {};
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(url + path, {
        method,
        headers,
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON (trace, ShiViz) */
      }
      return { status: res.status, body: parsed, text };
    },
    async close(o = {}) {
      await relay.close();
      if (!o.keepData && !opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Received {
  frame: ServerFrame;
  at: number;
}

/** A client speaking raw frames over one transport, recording what arrives. */
export interface FrameClient {
  transport: 'ws' | 'socketio';
  received: Received[];
  send(frame: ClientFrame | unknown): void;
  /** Sends raw text (ws only; socket.io sends it as the frame's argument). */
  sendRaw(text: string): void;
  /** The first frame after index `from` matching `pred`, waiting up to `ms`. */
  next<T extends ServerFrame = ServerFrame>(
    pred: (f: ServerFrame) => boolean,
    ms?: number,
    from?: number,
  ): Promise<T>;
  close(): Promise<void>;
}

export async function connect(h: Harness, transport: 'ws' | 'socketio'): Promise<FrameClient> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const push = (frame: ServerFrame) => {
    received.push({ frame, at: performance.now() });
    for (const w of [...waiters]) w();
  };
  let send: (f: unknown) => void;
  let sendRaw: (t: string) => void;
  let close: () => Promise<void>;
  if (transport === 'ws') {
    const ws = new WebSocket(h.wsUrl);
    ws.on('message', (data) => push(JSON.parse(data.toString())));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    send = (f) => ws.send(JSON.stringify(f));
    sendRaw = (t) => ws.send(t);
    close = () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      });
  } else {
    const socket: Socket = ioClient(h.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    socket.on('frame', (f: ServerFrame) => push(f));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    send = (f) => socket.emit('frame', f);
    sendRaw = (t) => socket.emit('frame', t);
    close = async () => {
      socket.disconnect();
    };
  }
  return {
    transport,
    received,
    send,
    sendRaw,
    next(pred, ms = 3000, from = 0) {
      return new Promise((resolve, reject) => {
        let i = from;
        const check = () => {
          for (; i < received.length; i++) {
            if (pred(received[i]!.frame)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(received[i]!.frame as any);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching frame within ${ms} ms; got ${received
                .slice(-5)
                .map((r) => r.frame.type)
                .join(',')}`,
            ),
          );
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close,
  };
}

/** Connects and joins `lab` as process `id` (or the next free one); returns the client and its id. */
export async function joinAs(
  h: Harness,
  transport: 'ws' | 'socketio',
  lab: string,
  id?: ProcessId,
): Promise<{ c: FrameClient; id: ProcessId; resume: string }> {
  const c = await connect(h, transport);
  c.send({ type: 'join', lab, ...(id !== undefined ? { id } : {}), kind: 'external' });
  const f = await c.next((f) => f.type === 'joined' || f.type === 'error');
  if (f.type !== 'joined') throw new Error(`join refused: ${JSON.stringify(f)}`);
  return { c, id: f.id, resume: f.resume };
}

export const delivered = (c: FrameClient) =>
  c.received.filter((r) => r.frame.type === 'deliver') as {
    frame: Extract<ServerFrame, { type: 'deliver' }>;
    at: number;
  }[];

/** A lab's trace as the relay serves it (`GET /api/labs/:lab/trace`), one event per line. */
export async function labTrace(h: Harness, lab: string): Promise<TraceEvent[]> {
  return parseTrace((await h.api('GET', `/api/labs/${lab}/trace`)).text);
}

/** A trace as the API sends it (JSON Lines) -> its events. */
export function parseTrace(text: string): TraceEvent[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceEvent);
}

/**
 * Generous bounds for elections over a real relay: a busy machine running the tests must not
 * stall the event loop past T and break the synchrony the algorithms assume (UB = 2T + M),
 * which is not what those tests check.
 */
export const SAFE_TIMING = {
  transmission: 150,
  processing: 20,
  heartbeatInterval: 150,
  heartbeatTimeout: 900,
};

/** Polls `cond` every `everyMs` until it holds; throws naming `what` after `ms`. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  ms = 5000,
  what = 'condition',
  everyMs = 20,
): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await cond()) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
