// The load generator: C connections in one Node process, joined as ids, each sending to the next
// one round a ring. Two ways to load the server:
// - closed loop (throughput): every sender keeps `window` messages outstanding and sends one more
//   each time one of its messages is delivered, so the server runs flat out;
// - open loop (latency): a fixed total rate, paced by a 1 ms timer that catches up on elapsed
//   time, each message carrying its send time; the receiver records send-to-delivery latency.
// Sender and receiver live in this process, so both timestamps come from one clock.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { openWire, type Transport, type Wire } from './load-wire.ts';
import { summarize, type Summary } from './percentiles.ts';

export interface ConnectRequest {
  url: string;
  transport: Transport;
  /** Lab to join (ignored by the baselines). */
  lab: string;
  ids: number[];
  /** Connections opened at once while connecting. */
  parallel?: number;
  /** Send one state report after joining, as a process running an algorithm does. */
  report?: boolean;
}

export interface ThroughputResult {
  delivered: number;
  seconds: number;
  rate: number;
  /** CPU time this load process used, as a share of one core over the measured interval. */
  loadCpu: number;
  lost: number;
}

export interface LatencyResult extends Summary {
  offered: number;
  achieved: number;
  sent: number;
  lost: number;
  loadCpu: number;
  /** How late this load process's event loop ran at worst (ms): a late load delays deliveries it then timestamps. */
  loadLoopMax: number;
  /** Every sample, in ms to 0.001 (only when asked for, to pool several runs). */
  samples?: number[];
}

interface Client {
  id: number;
  wire: Wire;
  /** Index of the client this one sends to. */
  next: number;
}

const BENCH_TYPE = 'BENCH';

export class LoadGen {
  private clients: Client[] = [];
  private indexOf = new Map<number, number>();
  private onDeliver: (to: number, from: number, message: { t: number }) => void = () => {};
  private joinWaiters = new Map<number, (ok: boolean) => void>();
  errors = 0;
  closed = 0;

  get size(): number {
    return this.clients.length;
  }

  async connect(req: ConnectRequest): Promise<number> {
    const parallel = req.parallel ?? 50;
    for (let i = 0; i < req.ids.length; i += parallel) {
      await Promise.all(req.ids.slice(i, i + parallel).map((id) => this.join(req, id)));
    }
    this.clients.forEach((c, i) => (c.next = (i + 1) % this.clients.length));
    return this.clients.length;
  }

  private async join(req: ConnectRequest, id: number): Promise<void> {
    const wire = await openWire({
      url: req.url,
      transport: req.transport,
      onFrame: (f) => this.frame(id, f),
      onClose: () => this.closed++,
    });
    const joined = new Promise<boolean>((resolve) => this.joinWaiters.set(id, resolve));
    wire.send({ type: 'join', lab: req.lab, id, kind: 'bot' });
    const timeout = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), 10_000).unref(),
    );
    if (!(await Promise.race([joined, timeout])))
      throw new Error(`join of id ${id} failed or timed out`);
    if (req.report)
      wire.send({
        type: 'report',
        report: {
          role: 'follower',
          coordinator: req.ids[req.ids.length - 1] ?? 0,
          electing: false,
        },
      });
    this.indexOf.set(id, this.clients.length);
    this.clients.push({ id, wire, next: 0 });
  }

  private frame(self: number, f: ServerFrame): void {
    if (f.type === 'deliver') this.onDeliver(self, f.from, f.message as unknown as { t: number });
    else if (f.type === 'joined') this.joinWaiters.get(self)?.(true);
    else if (f.type === 'error') {
      this.errors++;
      this.joinWaiters.get(self)?.(false);
    }
  }

  private sendFrom(c: Client, seq: number): void {
    const to = this.clients[c.next]!.id;
    c.wire.send({ type: 'send', to, message: { type: BENCH_TYPE, s: seq, t: performance.now() } });
  }

  /** Closed loop: each sender keeps `window` messages outstanding. Counts deliveries after `warmupMs`. */
  async throughput(opts: {
    durationMs: number;
    warmupMs: number;
    window: number;
  }): Promise<ThroughputResult> {
    let running = true;
    let counting = false;
    let delivered = 0;
    let sent = 0;
    let received = 0;
    this.onDeliver = (_to, from) => {
      received++;
      if (counting) delivered++;
      if (!running) return;
      const c = this.clients[this.indexOf.get(from)!]!;
      this.sendFrom(c, sent++);
    };
    for (const c of this.clients) for (let k = 0; k < opts.window; k++) this.sendFrom(c, sent++);
    await sleep(opts.warmupMs);
    counting = true;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(opts.durationMs);
    counting = false;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    running = false;
    const lost = await this.drain(() => sent - received);
    return {
      delivered,
      seconds,
      rate: delivered / seconds,
      loadCpu: (cpu.user + cpu.system) / 1e6 / seconds,
      lost,
    };
  }

  /** Open loop at `rate` messages a second in total; latency of every delivery, minus `subtractMs` (an injected delay). */
  async latency(opts: {
    rate: number;
    durationMs: number;
    warmupMs: number;
    subtractMs?: number;
    maxSamples?: number;
    keepSamples?: boolean;
  }): Promise<LatencyResult> {
    const max = opts.maxSamples ?? 2_000_000;
    const samples = new Float64Array(max);
    let n = 0;
    let sent = 0;
    let received = 0;
    let measureFrom = Infinity;
    const sub = opts.subtractMs ?? 0;
    this.onDeliver = (_to, _from, m) => {
      received++;
      if (m.t >= measureFrom && n < max) samples[n++] = performance.now() - m.t - sub;
    };
    const start = performance.now();
    const end = start + opts.warmupMs + opts.durationMs;
    let rr = 0;
    const cpu0 = process.cpuUsage();
    let cpuFrom = cpu0;
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    let sentAtMeasure = 0;
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        const now = performance.now();
        if (measureFrom === Infinity && now - start >= opts.warmupMs) {
          measureFrom = now;
          cpuFrom = process.cpuUsage();
          sentAtMeasure = sent;
          loop.reset();
        }
        const due = Math.min(
          Math.floor(((now - start) * opts.rate) / 1000),
          Math.ceil(((end - start) * opts.rate) / 1000),
        );
        // Catch up on elapsed time, round robin over the senders; bounded by the total due.
        while (sent < due) this.sendFrom(this.clients[rr++ % this.clients.length]!, sent++);
        if (now >= end) resolve();
        else setTimeout(tick, 1);
      };
      tick();
    });
    const seconds = (performance.now() - measureFrom) / 1000;
    const cpu = process.cpuUsage(cpuFrom);
    const lost = await this.drain(() => sent - received);
    loop.disable();
    return {
      ...summarize(samples.subarray(0, n)),
      offered: opts.rate,
      achieved: (sent - sentAtMeasure) / seconds,
      sent,
      lost,
      loadCpu: (cpu.user + cpu.system) / 1e6 / seconds,
      loadLoopMax: loop.max / 1e6,
      ...(opts.keepSamples
        ? { samples: Array.from(samples.subarray(0, n), (x) => Math.round(x * 1000) / 1000) }
        : {}),
    };
  }

  /** Waits (at most 5 s) for outstanding messages; returns how many never came. */
  private async drain(outstanding: () => number): Promise<number> {
    for (let i = 0; i < 100 && outstanding() > 0; i++) await sleep(50);
    const lost = outstanding();
    this.onDeliver = () => {};
    return lost;
  }

  async close(): Promise<void> {
    // Leave first: a dropped connection's id stays reserved for its resume token.
    for (const c of this.clients) c.wire.send({ type: 'leave' });
    await sleep(50);
    for (const c of this.clients) c.wire.close();
    this.clients = [];
    this.indexOf.clear();
    this.joinWaiters.clear();
    await sleep(100);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
