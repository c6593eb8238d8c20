// npm run bench:cluster [-- --quick] [--labs N] [--seconds S]
// Three relays on one Redis against one relay, in the same run (docs/SCALING.md):
// - throughput: the same labs of server-side Bully bots (heartbeats every 50 ms), on one relay,
//   then spread over three (each lab placed on the relay that created it); messages delivered
//   per second in total, and each relay process's resident memory;
// - failover: a lab of bots connected from this process; its owner is killed with SIGKILL and
//   the time until another relay owns the lab, and until the bots agree again there, is measured.
// On a 2-core machine three relays share two cores: the ratio says what one machine gives, and
// several machines give more (each relay is one core).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { progressLine } from '../scripts/cli.ts';
import {
  clusterApi,
  freePort,
  redisOn,
  startRelayProc,
  type RelayProc,
} from '../scripts/cluster/procs.ts';

const USAGE = `Usage: npm run bench:cluster -- [--quick] [--labs N] [--seconds S] [--help]
  --quick      a short run (fewer labs, 4 s of measurement)
  --labs N     labs of 8 server-side bots each (default 24)
  --seconds S  measurement window per setting (default 10)`;
let values;
try {
  ({ values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      labs: { type: 'string' },
      seconds: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const LABS = Number(values.labs ?? (values.quick ? 3 : 24));
const SECONDS = Number(values.seconds ?? (values.quick ? 4 : 10));
if (!Number.isInteger(LABS) || LABS < 1 || LABS > 60) {
  console.error(`--labs: 1 to 60\n\n${USAGE}`);
  process.exit(2);
}
if (!(SECONDS > 0 && SECONDS <= 120)) {
  console.error(`--seconds: more than 0, at most 120\n\n${USAGE}`);
  process.exit(2);
}
const TOKEN = 'bench-cluster';
const SIZE = 8;
const LEASE_MS = 1500;
const TIMING = { transmission: 20, processing: 5, heartbeatInterval: 50, heartbeatTimeout: 200 };
const line = progressLine();
const progress = (s: string) => line.step(s);

const api = clusterApi(TOKEN);

/** CPU time (user + system) a process has used, ms (Linux /proc; clock ticks of 10 ms). */
async function cpuMsOf(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
}

async function rssOf(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  cond: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (
      await Promise.resolve()
        .then(cond)
        .catch(() => false)
    )
      return Date.now() - t0;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function delivered(relays: RelayProc[], labs: string[]): Promise<number> {
  let sum = 0;
  for (const lab of labs)
    sum += (await api(relays[0]!.url, 'GET', `/api/labs/${lab}/stats?links=0`)).body.messages
      .delivered as number;
  return sum;
}

/** Labs of server-side bots, created round-robin through `relays`; messages/s over the window. */
async function throughput(
  relays: RelayProc[],
  tag: string,
): Promise<{ perSecond: number; rss: number[]; cpuPerK: number }> {
  const labs = Array.from({ length: LABS }, (_, i) => `${tag}-${i}`);
  for (const [i, lab] of labs.entries()) {
    const via = relays[i % relays.length]!.url;
    const made = await api(via, 'POST', '/api/labs', {
      name: lab,
      size: SIZE,
      algorithm: 'bully',
      timing: TIMING,
      fabric: { link: { delay: 2, jitter: 1 } },
    });
    if (made.status !== 201)
      throw new Error(`create ${lab}: ${made.status} ${JSON.stringify(made.body)}`);
    const bots = await api(via, 'POST', `/api/labs/${lab}/bots`, { count: SIZE });
    if (bots.status !== 201) throw new Error(`bots ${lab}: ${bots.status}`);
  }
  progress(`${tag}: warming up`);
  await sleep(3000);
  const before = await delivered(relays, labs);
  const cpu0 = await Promise.all(relays.map((r) => cpuMsOf(r.child.pid)));
  const t0 = Date.now();
  for (let s = 0; s < SECONDS; s++) {
    progress(`${tag}: measuring ${s + 1}/${SECONDS} s`);
    await sleep(1000);
  }
  const after = await delivered(relays, labs);
  const cpu1 = await Promise.all(relays.map((r) => cpuMsOf(r.child.pid)));
  const perSecond = ((after - before) * 1000) / (Date.now() - t0);
  // Relay CPU per 1,000 messages (the bots run inside the relays, so this includes them).
  const cpuPerK =
    (cpu1.reduce((s, v, i) => s + v - cpu0[i]!, 0) * 1000) / Math.max(1, after - before);
  const rss = await Promise.all(relays.map((r) => rssOf(r.child.pid)));
  for (const lab of labs) await api(relays[0]!.url, 'DELETE', `/api/labs/${lab}`);
  return { perSecond, rss, cpuPerK };
}

const dataDir = await mkdtemp(join(tmpdir(), 'elab-bench-cluster-'));
const started: RelayProc[] = [];
const redis = redisOn(await freePort(), dataDir);
try {
  // One relay, no Redis: the baseline.
  const single = await startRelayProc({
    id: 'single',
    port: await freePort(),
    dataDir: join(dataDir, 'single'),
    token: TOKEN,
  });
  started.push(single);
  const one = await throughput([single], 'one');
  await single.kill('SIGTERM');

  await redis.start();
  const relays: RelayProc[] = [];
  for (const id of ['A', 'B', 'C'])
    relays.push(
      await startRelayProc({
        id,
        port: await freePort(),
        dataDir: join(dataDir, 'cluster'),
        token: TOKEN,
        redisUrl: redis.url,
        leaseMs: LEASE_MS,
      }),
    );
  started.push(...relays);
  const three = await throughput(relays, 'three');

  // Failover: a lab made on A, bots connected through B and C; A is killed.
  progress('failover');
  const [a, b, c] = relays as [RelayProc, RelayProc, RelayProc];
  await api(a.url, 'POST', '/api/labs', {
    name: 'fo',
    size: 6,
    algorithm: 'bully',
    timing: { transmission: 30, processing: 5, heartbeatInterval: 100, heartbeatTimeout: 400 },
  });
  const urls = relays.map((r) => r.url);
  const fleet = new BotFleet({
    lab: 'fo',
    count: 6,
    ids: [0, 1, 2, 3, 4, 5],
    channel: () => nodeChannel(b.url, 'ws'),
    follow: (u) => nodeChannel(u, 'ws'),
    relays: urls,
  });
  await fleet.start();
  const agreed = (leader: number, up: number) => async () =>
    (await api(c.url, 'GET', '/api/labs/fo/stats?links=0')).body.coordinators[String(leader)] ===
    up;
  await until(agreed(5, 6), 15_000, 'agreement before the kill');
  const killed = Date.now();
  await a.kill('SIGKILL');
  const owned = await until(
    async () => {
      for (const r of [b, c])
        if (
          (await api(r.url, 'GET', '/api/cluster')).body.owned.some(
            (o: { lab: string }) => o.lab === 'fo',
          )
        )
          return true;
      return false;
    },
    20_000,
    'takeover',
  );
  await until(agreed(5, 6), 20_000, 'the bots back on the new owner');
  const rejoined = Date.now() - killed;
  fleet.stop();
  line.done();

  const mib = (n: number) => (n / 1048576).toFixed(0);
  const lines = [
    `# bench:cluster (${LABS} labs of ${SIZE} server-side Bully bots, heartbeats every ${TIMING.heartbeatInterval} ms, ${SECONDS} s windows)`,
    '',
    '| setting | messages delivered/s | ratio to one relay | CPU ms per 1,000 messages (relays + their bots) | relay RSS (MiB) |',
    '|---|---:|---:|---:|---|',
    `| one relay (no Redis) | ${one.perSecond.toFixed(0)} | 1.00 | ${one.cpuPerK.toFixed(1)} | ${mib(one.rss[0]!)} |`,
    `| three relays + Redis | ${three.perSecond.toFixed(0)} | ${(three.perSecond / one.perSecond).toFixed(2)} | ${three.cpuPerK.toFixed(1)} | ${three.rss.map(mib).join(' / ')} |`,
    '',
    `failover after kill -9 of the owner (lease ${LEASE_MS} ms): lab owned again after ${owned} ms, its 6 bots agreeing again after ${rejoined} ms`,
  ];
  console.log(lines.join('\n'));
} finally {
  await Promise.all(started.map((r) => r.kill('SIGKILL')));
  await redis.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
}
