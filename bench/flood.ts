// npm run bench:flood: the token-less flood of issue 23 against a relay child process
// (server/main.ts, as `npm start` runs it). `--conns` connections join one lab without a token
// and each sends `--bytes`-byte messages at `--rate` a second (under the per-connection frame
// limit) for `--seconds`, while one connection observes the lab. Prints the relay's peak RSS
// (VmHWM), whether it survived, the bytes it accepted and refused, what the observer received
// and the trace's bytes on disk. The relay's limits come from the environment (README's table),
// so the same script measures the defaults or a scaled-down setting; `--slow-write-ms` makes
// every trace write wait that long per MiB first (TRACE_WRITE_MS_PER_MIB, a test hook on the real
// write path: a slow disk).
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { flood, rssOf } from './flood-load.ts';
import { clusterApi, freePort, startRelayProc } from '../scripts/cluster/procs.ts';
import { handleHelp, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:flood -- [options]

Floods one observed lab from token-less connections; prints the relay's peak RSS and what it kept.
  --conns N          flooding connections (default 8)
  --bytes N          message JSON bytes (default 16000; at most 16,000)
  --rate N           messages a second per connection (default 1900)
  --seconds N        how long (default 60)
  --heap-mb N        the relay's --max-old-space-size (default: Node's)
  --slow-write-ms N  every trace write first waits N ms per MiB (default 0)
  --no-observer      flood without an observer
  --help             this text`;
handleHelp(process.argv.slice(2), USAGE);

let values: Record<string, string | boolean | undefined> = {};
try {
  values = parseArgs({
    options: {
      conns: { type: 'string', default: '8' },
      bytes: { type: 'string', default: '16000' },
      rate: { type: 'string', default: '1900' },
      seconds: { type: 'string', default: '60' },
      'heap-mb': { type: 'string' },
      'slow-write-ms': { type: 'string', default: '0' },
      'no-observer': { type: 'boolean', default: false },
    },
  }).values;
} catch (e) {
  usageError('bench:flood', USAGE, e);
}
const num = (k: string, min: number, max: number): number => {
  const n = Number(values[k]);
  if (!Number.isFinite(n) || n < min || n > max)
    usageError('bench:flood', USAGE, new Error(`--${k}: ${min} to ${max}`));
  return n;
};
const conns = num('conns', 1, 64);
const bytes = num('bytes', 100, 16_000);
const rate = num('rate', 1, 2000);
const seconds = num('seconds', 1, 600);
const heapMb = values['heap-mb'] === undefined ? null : num('heap-mb', 64, 16_384);
const slowMs = num('slow-write-ms', 0, 10_000);
const observe = values['no-observer'] !== true;

const TOKEN = 'flood-token';
const api = clusterApi(TOKEN);
const dataDir = await mkdtemp(join(tmpdir(), 'flood-'));
const port = await freePort();
const relay = await startRelayProc({
  id: 'flood',
  port,
  dataDir,
  token: TOKEN,
  env: {
    ...(heapMb !== null ? { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } : {}),
    ...(slowMs > 0 ? { TRACE_WRITE_MS_PER_MIB: String(slowMs) } : {}),
  },
});
let relayExit: string | null = null;
let relayErr = '';
relay.child.stderr?.on('data', (d: Buffer) => (relayErr = (relayErr + d.toString()).slice(-4000)));
relay.child.once('exit', (code, signal) => (relayExit = `exited (code ${code}, signal ${signal})`));

const made = await api(relay.url, 'POST', '/api/labs', {
  name: 'flood',
  size: 2 * conns,
  algorithm: 'bully',
  detector: 'none',
});
if (made.status !== 201) throw new Error(`lab: ${made.status} ${JSON.stringify(made.body)}`);

const exited = new Promise<void>((resolve) => relay.child.once('exit', () => resolve()));
const r = await flood({
  url: relay.url,
  lab: 'flood',
  conns,
  bytes,
  rate,
  seconds,
  observe,
  pid: relay.child.pid!,
  exited,
});

const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
const get = async (path: string) => {
  if (relayExit) return null;
  const r = await Promise.race([
    api(relay.url, 'GET', path),
    new Promise<null>((r) => setTimeout(() => r(null), 30_000)),
  ]);
  return r?.body ?? null;
};
const health = await get('/api/health');
const stats = await get('/api/labs/flood/stats');
const final = rssOf(relay.child.pid!);
const peakHwm = Math.max(r.peakRss, final?.hwm ?? 0);
let disk = 0;
for (const f of await readdir(dataDir, { recursive: true }).catch(() => [] as string[]))
  disk += await stat(join(dataDir, f)).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );

const accepted = (stats?.messages?.sent ?? 0) as number;
console.log(
  [
    `flood: ${conns} connections x ${bytes} B x ${rate}/s for ${r.seconds.toFixed(1)} s, observer ${observe ? 'on' : 'off'}${slowMs ? `, trace writes slowed to ${slowMs} ms per MiB` : ''}${heapMb ? `, heap ${heapMb} MB` : ''}`,
    `relay: ${relayExit ?? 'up'}; peak RSS ${mb(peakHwm)}; RSS at end ${final ? mb(final.rss) : '-'}`,
    `offered ${r.offered.toLocaleString('en')} frames (${mb(r.offered * bytes)}); not offered (client's own 4 MB queue full) ${r.heldBack.toLocaleString('en')}`,
    `accepted (send events) ${accepted.toLocaleString('en')} (${mb(accepted * bytes)})`,
    `errors to the senders: ${JSON.stringify(r.errors)}`,
    `observer received ${mb(r.observedBytes)} in ${r.observerFrames} frames${r.observerClose ? `; closed: ${r.observerClose}` : ''}`,
    `data folder on disk ${mb(disk)}`,
    `health counters: ${JSON.stringify(health?.counters ?? null)}`,
    `health traces: ${JSON.stringify(health?.traces ?? null)}`,
    ...(stats?.trace ? [`lab trace: ${JSON.stringify(stats.trace)}`] : []),
    ...(stats?.refused ? [`lab refused: ${JSON.stringify(stats.refused)}`] : []),
    ...(relayExit ? [`relay stderr (end): ${relayErr.slice(-600)}`] : []),
  ].join('\n'),
);
await relay.kill('SIGKILL');
await rm(dataDir, { recursive: true, force: true });
process.exit(0);
