// npm run cluster -- --relays 3 [--port 3000] [--redis URL] [--data DIR] [--lease MS] [--host H]
// Starts a cluster on this machine (docs/SCALING.md): a redis-server (unless --redis names one)
// and N relays on consecutive ports sharing one data folder and one instructor token. Ctrl-C
// stops everything it started.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  freePort,
  redisOn,
  startRelayProc,
  type RedisProc,
  type RelayProc,
} from './cluster/procs.ts';

const USAGE = `Usage: npm run cluster -- [options]

Starts a Redis (unless --redis is given) and several relays on this machine, sharing one data
folder, as docs/SCALING.md describes. Ctrl-C stops them all.

  --relays N      how many relays (default 3, at most 16)
  --port P        the first relay's port; the others take P+1, P+2... (default 3000)
  --host H        the relays' bind address and public host (default 127.0.0.1)
  --redis URL     use this Redis instead of starting redis-server
  --data DIR      the shared data folder (default ./data-cluster)
  --lease MS      lab lease time to live (default 5000)
  --help          this text`;

function usage(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      relays: { type: 'string', default: '3' },
      port: { type: 'string', default: '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      redis: { type: 'string' },
      data: { type: 'string', default: './data-cluster' },
      lease: { type: 'string', default: '5000' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  }));
} catch (err) {
  usage((err as Error).message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const n = Number(values.relays);
const port = Number(values.port);
const lease = Number(values.lease);
if (!Number.isInteger(n) || n < 1 || n > 16) usage('--relays: a whole number from 1 to 16');
if (!Number.isInteger(port) || port < 1 || port + n > 65535) usage('--port: a port number');
if (!Number.isInteger(lease) || lease < 300) usage('--lease: at least 300 ms');

const dataDir = resolve(values.data);
await mkdir(dataDir, { recursive: true });
const token = process.env['ELECTION_LAB_TOKEN'] || randomBytes(12).toString('base64url');
let redis: RedisProc | null = null;
const relays: RelayProc[] = [];

async function stopAll(code: number): Promise<never> {
  await Promise.all(relays.map((r) => r.kill('SIGTERM')));
  await redis?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  let redisUrl = values.redis;
  if (!redisUrl) {
    redis = redisOn(await freePort(), dataDir);
    await redis.start();
    redisUrl = redis.url;
  }
  for (let i = 0; i < n; i++) {
    const relay = await startRelayProc({
      id: `relay-${i + 1}`,
      port: port + i,
      host: values.host,
      dataDir,
      token,
      redisUrl,
      leaseMs: lease,
    });
    relays.push(relay);
    relay.child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[${relay.id}] ${d}`));
  }
  console.log(
    [
      `Election Lab cluster: ${n} relays on Redis ${redisUrl}, data in ${dataDir}, lease ${lease} ms.`,
      ...relays.map((r) => `  ${r.id}: ${r.url}`),
      '',
      'Any relay serves the home page, the lab list and the join links; a lab lives on one relay',
      'and the others send its users there. Instructor (every relay):',
      `  ${relays[0]!.url}/lab/demo/instructor?token=${encodeURIComponent(token)}`,
      '',
      'Ctrl-C stops the relays and the Redis this started.',
    ].join('\n'),
  );
} catch (err) {
  console.error(String(err instanceof Error ? err.message : err));
  await stopAll(1);
}
