// Issue 23's flood as a load: `conns` token-less raw WebSocket connections join one lab and each
// sends `bytes`-byte messages at `rate` a second, to an id nobody holds (journaled with its
// payload, then dropped as receiver-gone), while one more connection observes the lab. The
// relay's RSS is sampled from /proc meanwhile (its peak is the kernel's VmHWM). Used by
// `npm run bench:flood` and test/relay/relay-load-bound.test.ts. Talks to 127.0.0.1 only; bounded in time.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

export interface FloodOptions {
  /** The relay's http://127.0.0.1:port. */
  url: string;
  lab: string;
  conns: number;
  bytes: number;
  rate: number;
  seconds: number;
  observe: boolean;
  /** The relay's process id, for its RSS. */
  pid: number;
  /** Resolves if the relay dies (the flood then ends at once). */
  exited: Promise<unknown>;
}

export interface FloodResult {
  seconds: number;
  offered: number;
  /** Frames not offered because the client's own queue was full (the relay read no faster). */
  heldBack: number;
  /** Error frames the senders got, by code. */
  errors: Record<string, number>;
  observedBytes: number;
  observerFrames: number;
  /** The observer's close code and reason, if the relay closed it. */
  observerClose: string | null;
  peakRss: number;
  /** The relay's RSS just before the flood began. */
  startRss: number;
}

/** Current and peak RSS of a process, from /proc; null once it is gone. */
export function rssOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

const CLIENT_QUEUE_MAX = 4 * 2 ** 20;
const TICK_MS = 10;
/** How long the flood's end waits for the relay to have read what was offered. */
const DRAIN_MS = 20_000;

export async function flood(o: FloodOptions): Promise<FloodResult> {
  const wsUrl = o.url.replace('http', 'ws') + '/ws';
  // A zero mask: the client skips masking (ws), so the generator is not the bottleneck.
  const open = (): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { generateMask: (m: Buffer) => void m.fill(0) });
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  const r: FloodResult = {
    seconds: 0,
    offered: 0,
    heldBack: 0,
    errors: {},
    observedBytes: 0,
    observerFrames: 0,
    observerClose: null,
    peakRss: 0,
    startRss: rssOf(o.pid)?.rss ?? 0,
  };
  const observer = o.observe ? await open() : null;
  observer?.on('message', (d: Buffer) => {
    r.observedBytes += d.length;
    r.observerFrames++;
  });
  observer?.on('error', () => {});
  observer?.on('close', (code, reason) => (r.observerClose = `${code} ${reason.toString()}`));
  observer?.send(JSON.stringify({ type: 'observe', lab: o.lab }));

  const pad = 'x'.repeat(o.bytes - JSON.stringify({ type: 'FLOOD', pad: '' }).length);
  const senders = await Promise.all(
    Array.from({ length: o.conns }, async (_, i) => {
      const ws = await open();
      let ponged: () => void = () => {};
      const pong = new Promise<void>((resolve) => (ponged = resolve));
      ws.on('message', (d: Buffer) => {
        if (d.length > 4096) return;
        const head = d.toString('latin1', 0, 16);
        if (head.startsWith('{"type":"pong"')) return ponged();
        if (!head.startsWith('{"type":"error"')) return;
        const code = (JSON.parse(d.toString()) as { code: string }).code;
        r.errors[code] = (r.errors[code] ?? 0) + 1;
      });
      ws.on('error', () => {});
      ws.send(JSON.stringify({ type: 'join', lab: o.lab, id: i }));
      return {
        ws,
        pong,
        frame: Buffer.from(
          JSON.stringify({ type: 'send', to: o.conns + i, message: { type: 'FLOOD', pad } }),
        ),
      };
    }),
  );

  const sample = () => {
    const m = rssOf(o.pid);
    if (m) r.peakRss = Math.max(r.peakRss, m.hwm);
  };
  const perTick = o.rate / (1000 / TICK_MS);
  let credit = 0;
  const started = performance.now();
  const sampler = setInterval(sample, 250);
  const sender = setInterval(() => {
    credit += perTick;
    const n = Math.floor(credit);
    credit -= n;
    for (const s of senders) {
      if (s.ws.readyState !== WebSocket.OPEN) continue;
      for (let k = 0; k < n; k++) {
        if (s.ws.bufferedAmount > CLIENT_QUEUE_MAX) {
          r.heldBack += n - k;
          break;
        }
        s.ws.send(s.frame, { binary: false });
        r.offered++;
      }
    }
  }, TICK_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    new Promise((resolve) => (timer = setTimeout(resolve, o.seconds * 1000))),
    o.exited,
  ]);
  clearTimeout(timer);
  clearInterval(sender);
  r.seconds = (performance.now() - started) / 1000;
  // The relay answers in order: once each sender's ping is answered, it has read (and answered)
  // everything that sender offered. Bounded: a relay far behind gets DRAIN_MS.
  for (const s of senders) if (s.ws.readyState === WebSocket.OPEN) s.ws.send('{"type":"ping"}');
  await Promise.race([
    Promise.all(senders.map((s) => s.pong)),
    o.exited,
    new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS))),
  ]);
  clearTimeout(timer);
  clearInterval(sampler);
  sample();
  for (const s of senders) s.ws.terminate();
  observer?.removeAllListeners('close');
  observer?.terminate();
  return r;
}
