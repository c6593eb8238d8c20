// Entry point: `npm start`. Reads PORT (3000), HOST (0.0.0.0, so a classroom network can join),
// ELECTION_LAB_TOKEN (generated and printed when unset) and DATA_DIR (./data); builds the relay,
// listens, opens a lab named `demo` (8 ids running bully, filled with server bots, its coordinator
// crashed and recovered every half minute until an instructor takes over), and prints the URLs.
// With REDIS_URL the relay joins a cluster (RELAY_ID, PUBLIC_URL, LEASE_MS; docs/SCALING.md).
// Limits come from the environment too (README's table).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { installLastLine } from './last-line.ts';
import { openDemoLab } from './demo-lab.ts';
import { createRelay } from './relay.ts';

const port = Number(process.env['PORT'] ?? 3000);
const host = process.env['HOST'] ?? '0.0.0.0';
const dataDir = resolve(process.env['DATA_DIR'] ?? './data');
const fromEnv = process.env['ELECTION_LAB_TOKEN'];
const token = fromEnv && fromEnv.length > 0 ? fromEnv : randomBytes(12).toString('base64url');

const redisUrl = process.env['REDIS_URL'];
const publicUrl =
  process.env['PUBLIC_URL'] ??
  `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
const cluster = redisUrl
  ? {
      redisUrl,
      relayId: process.env['RELAY_ID'] ?? `relay-${randomBytes(4).toString('hex')}`,
      publicUrl,
      leaseMs: Number(process.env['LEASE_MS'] ?? 5000),
    }
  : undefined;

const wholeFromEnv = (name: string): number | undefined => {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`${name} must be a whole number, got "${v}"`);
    process.exit(2);
  }
  return n;
};
const traceMaxBytes = wholeFromEnv('TRACE_MAX_BYTES');
const perIp = wholeFromEnv('MAX_CONNECTIONS_PER_IP');
// Comma-separated origins (scheme://host[:port]) of browser pages allowed besides the relay's own.
const origins = process.env['ALLOWED_ORIGINS']
  ?.split(',')
  .map((o) => o.trim())
  .filter(Boolean);
const diskBudgetBytes = wholeFromEnv('DISK_BUDGET_BYTES');
const traceMaxPendingBytes = wholeFromEnv('TRACE_MAX_PENDING_BYTES');
// A test and bench hook: a disk that falls behind, on the real write path.
const traceWriteMsPerMiB = wholeFromEnv('TRACE_WRITE_MS_PER_MIB');
// Message bytes a second; bursts of four seconds' worth (server/lab/rate-limit.ts).
const bytesPerSecond = (name: string) => {
  const rate = wholeFromEnv(name);
  return rate === undefined || rate === 0 ? undefined : { rate, burst: 4 * rate };
};
const perAddress = bytesPerSecond('MAX_MESSAGE_BYTES_PER_ADDRESS');
const perLab = bytesPerSecond('MAX_MESSAGE_BYTES_PER_LAB');
const relay = await createRelay({
  dataDir,
  token,
  ...(cluster ? { cluster } : {}),
  ...(traceMaxBytes !== undefined ? { traceMaxBytes } : {}),
  ...(diskBudgetBytes !== undefined ? { diskBudgetBytes } : {}),
  ...(traceMaxPendingBytes ? { traceMaxPendingBytes } : {}),
  ...(traceWriteMsPerMiB ? { traceWriteMsPerMiB } : {}),
  byteLimits: { ...(perAddress ? { perAddress } : {}), ...(perLab ? { perLab } : {}) },
  net: {
    ...(perIp !== undefined ? { maxConnectionsPerIp: perIp } : {}),
    ...(origins?.length ? { allowedOrigins: origins } : {}),
  },
});
installLastLine(process, relay.counters, console.error);
// A lone relay opens the demo lab alive (server/demo-lab.ts). In a cluster the demo lab may live
// on another relay: this one only makes it when no relay has it, and leaves it still.
let demoLive = false;
if (relay.cluster) {
  if ((await relay.cluster.directory.config('demo').catch(() => null)) === null) {
    const demo = await relay.labs.create({ name: 'demo', algorithm: 'bully', size: 8 });
    if (!demo.ok) console.error('could not create the demo lab:', demo.error.message);
  }
} else {
  const demo = await openDemoLab(relay);
  if (demo.error) console.error('could not open the demo lab:', demo.error);
  else demoLive = true;
}

relay.server.on('error', (err) => {
  console.error(`cannot listen on ${host}:${port}:`, err.message);
  process.exit(1);
});
relay.server.listen(port, host, () => {
  // PORT=0 picks a free port; print the real one.
  const port = (relay.server.address() as AddressInfo).port;
  const lan = host === '0.0.0.0' || host === '::' ? lanAddresses() : [host];
  const lines = [
    'Election Lab relay is up.',
    `  data folder:    ${dataDir}`,
    ...(relay.cluster
      ? [`  cluster:        relay ${relay.cluster.relayId} at ${publicUrl}, Redis ${redisUrl}`]
      : []),
    `  labs:           ${relay.labs
      .list()
      .map((l) => `${l.name} (${l.config.algorithm}, ${l.config.ids.length} ids)`)
      .join(', ')}`,
    '',
    'Students open (join lab "demo"):',
    ...[`http://localhost:${port}/lab/demo`, ...lan.map((a) => `http://${a}:${port}/lab/demo`)].map(
      (u) => `  ${u}`,
    ),
    '',
    ...(demoLive
      ? [
          'The demo lab runs server bots; its coordinator is crashed and recovered every 30 s',
          'until you use any control on the instructor page. The bots hold its ids: remove them',
          '(instructor page, "Remove server bots") before students join it.',
          '',
        ]
      : []),
    'Instructor (keep this token to yourself):',
    `  http://localhost:${port}/lab/demo/instructor?token=${encodeURIComponent(token)}`,
    fromEnv
      ? '  token from ELECTION_LAB_TOKEN'
      : '  token generated; set ELECTION_LAB_TOKEN to choose one',
    '',
    `Raw WebSocket processes: ws://<host>:${port}/ws (docs/PROTOCOL.md); REST: http://localhost:${port}/api/labs`,
  ];
  console.log(lines.join('\n'));
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${signal}: writing traces and closing...`);
    relay.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}

function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}
