// npx tsx bench/scale-1000.ts [--n 1000] [--transport ws|socketio] [--transmission MS] [--profile]
//
// The 1,000-process lab: N bot processes (this Node process) in one lab of the relay (its own
// process, default flood limits), running Bully with detector 'none'. They start steady under
// coordinator N-1; the script crashes N-1 and asks the lowest id to elect. Bully's worst case
// (docs/ALGORITHMS.md, from 002 and 003) must then come out exactly: N(N-1)/2 ELECTION,
// (N-1)(N-2)/2 OK, N-2 COORDINATOR, every live process agreeing on N-2, and no message lost
// (the only drops are the N-1 ELECTIONs to the crashed process). T must exceed the time the
// relay needs to carry the whole storm, or second elections would add messages; the script
// reports that time so T can be chosen. Writes bench/scale-results.json.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { handleHelp, progressLine, usageError } from '../scripts/cli.ts';
import { DEFAULT_RATE_LIMITS } from '../server/lab/rate-limit.ts';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { nodeChannel, type BotTransport } from '@shared/lab-client/node-channel.ts';
import { startServer, stopServer } from './bench-phases.ts';
import type { ChildHandle } from './child-proc.ts';
import { BENCH_TOKEN, type BenchLabStats } from './relay-host.ts';
import { sleep } from './load-gen.ts';

const USAGE = `Usage: npm run bench:scale -- [--n 1000] [--transport ws|socketio] [--transmission MS] [--delay MS] [--timeout S] [--profile] [--out FILE]

N bot processes in one lab running Bully; the coordinator crashes and the lowest id elects: the
worst case's counts must come out exactly, with nothing lost.
  --help   this text`;
handleHelp(process.argv.slice(2), USAGE);
let values;
try {
  ({ values } = parseArgs({
    options: {
      n: { type: 'string', default: '1000' },
      transport: { type: 'string', default: 'ws' },
      transmission: { type: 'string', default: '60000' },
      delay: { type: 'string', default: '0' },
      timeout: { type: 'string', default: '900' },
      profile: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench/scale-results.json' },
    },
  }));
} catch (e) {
  usageError('bench:scale', USAGE, e);
}
const N = Number(values.n);
const T = Number(values.transmission);
const transport = values.transport as BotTransport;
const deadline = performance.now() + Number(values.timeout) * 1000;
const LAB = 'scale';
const mib = (b: number) => Math.round(b / 1048576);
const log = (s: string) => {
  line.done();
  console.log(`[${((performance.now() - t00) / 1000).toFixed(1).padStart(6)} s] ${s}`);
};
const t00 = performance.now();
const line = progressLine(process.stderr, t00);

const relay = await startServer(
  'relay',
  values.profile ? ['--cpu-prof', '--cpu-prof-dir=bench/profiles'] : [],
  [JSON.stringify({ rateLimits: DEFAULT_RATE_LIMITS })],
);
const url = `http://127.0.0.1:${String(relay.ready.port)}`;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
};
// Ctrl-C or a kill: take the relay child down too.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void relay.kill().then(() => process.exit(130)));
const relayStats = async () =>
  (await relay.request<{ stats: BenchLabStats }>({ cmd: 'lab-stats', lab: LAB })).stats;
const relayMem = (gc = false) =>
  relay.request<{ rss: number; maxRss: number; heapUsed: number }>({ cmd: 'usage', gc });

async function until(
  what: string,
  cond: () => boolean | Promise<boolean>,
  stepMs = 100,
): Promise<void> {
  line.step(`waiting for ${what}`);
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(stepMs);
  }
}

let fleet: BotFleet | null = null;
try {
  await api('POST', '/api/labs', {
    name: LAB,
    size: N,
    algorithm: 'bully',
    detector: 'none',
    timing: { transmission: T, processing: 10, heartbeatInterval: 1000, heartbeatTimeout: 3000 },
    fabric: { link: { delay: Number(values.delay), jitter: 0, loss: 0, duplicate: 0 } },
  });
  const memEmpty = await relayMem(true);
  // Deliveries of ELECTION and OK after the elect, timed at the bots.
  let t0 = Infinity;
  let lastStormDelivery = 0;
  const deliveredByType: Record<string, number> = {};
  fleet = new BotFleet({
    lab: LAB,
    channel: () => nodeChannel(url, transport),
    count: N,
    ids: Array.from({ length: N }, (_, i) => i),
    steadyCoordinator: N - 1,
    parallel: 100,
    onEvent: (_i, e) => {
      if (e.kind !== 'deliver' || performance.now() < t0) return;
      const type = e.message.type;
      deliveredByType[type] = (deliveredByType[type] ?? 0) + 1;
      if (type === 'ELECTION' || type === 'OK') lastStormDelivery = performance.now();
    },
  });
  const f = fleet;
  const tJoin = performance.now();
  const joined = await f.start();
  if (joined.joined.length !== N)
    throw new Error(
      `only ${joined.joined.length} of ${N} joined: ${JSON.stringify(joined.refused.slice(0, 3))}`,
    );
  await until(
    'the relay to see every report',
    async () => (await relayStats()).coordinators[String(N - 1)] === N,
    250,
  );
  const joinSeconds = (performance.now() - tJoin) / 1000;
  const memJoined = await relayMem(true);
  log(
    `${N} processes joined over ${transport} in ${joinSeconds.toFixed(1)} s; relay RSS ${mib(memEmpty.rss)} -> ${mib(memJoined.rss)} MiB`,
  );

  await api('POST', `/api/labs/${LAB}/processes/${N - 1}/crash`);
  await until('the crash to reach the bot', () => f.status().crashed === 1, 20);
  const sentBefore = { ...f.counters.sentByType };
  await relay.request({ cmd: 'cpu-mark' });
  const botsCpu0 = process.cpuUsage();
  t0 = performance.now();
  await api('POST', `/api/labs/${LAB}/processes/0/elect`);
  log(`crashed ${N - 1}; asked 0 to elect (T = ${T} ms, so UB = ${2 * T + 10} ms)`);

  let peakRelayRss = 0;
  /** Most messages the relay held at once, sampled every 5 s. */
  let peakHeld = 0;
  let tAgree = 0;
  let lastLog = 0;
  await until(
    'agreement on N-2',
    async () => {
      const s = f.status();
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        const m = await relayMem();
        const held = (await relayStats()).inFlight as number;
        peakRelayRss = Math.max(peakRelayRss, m.rss);
        peakHeld = Math.max(peakHeld, held);
        log(
          `electing ${s.electing}, agreeing on ${s.coordinator}: ${s.agreeing}/${s.up}; received ${f.counters.received}; relay holds ${held}, RSS ${mib(m.rss)} MiB`,
        );
      }
      if (s.agreed && s.coordinator === N - 2 && s.up === N - 1) tAgree = performance.now();
      return tAgree > 0;
    },
    20,
  );
  await until('the relay to empty its queue', async () => (await relayStats()).inFlight === 0, 200);
  // CPU seconds from the elect to now: the storm's work (both sides idle while waiting out UB).
  const relayCpuSeconds =
    (await relay.request<{ cpu: number }>({ cmd: 'cpu' })).cpu * ((performance.now() - t0) / 1000);
  const botsCpuUsage = process.cpuUsage(botsCpu0);
  const botsCpuSeconds = (botsCpuUsage.user + botsCpuUsage.system) / 1e6;
  await sleep(500);
  const stats = await relayStats();
  const memEnd = await relayMem();
  // What stays after a full GC: the lab's per-link counters and trace bookkeeping, not the storm's queues.
  const memEndGc = await relayMem(true);
  const botsUsage = process.resourceUsage();
  const sentAfter = f.counters.sentByType;
  const sentByBots = Object.fromEntries(
    Object.keys(sentAfter).map((k) => [k, sentAfter[k]! - (sentBefore[k] ?? 0)]),
  );

  const expected = { ELECTION: (N * (N - 1)) / 2, OK: ((N - 1) * (N - 2)) / 2, COORDINATOR: N - 2 };
  const measured = {
    ELECTION: stats.election.byType.ELECTION ?? 0,
    OK: stats.election.byType.OK ?? 0,
    COORDINATOR: stats.election.byType.COORDINATOR ?? 0,
  };
  const lost = Object.entries(stats.drops as Record<string, number>)
    .filter(([r]) => r !== 'receiver-crashed')
    .reduce((a, [, n]) => a + n, 0);
  const droppedToCrashed = stats.drops['receiver-crashed'] ?? 0;
  const result = {
    when: new Date().toISOString(),
    n: N,
    transport,
    timing: { transmission: T, processing: 10, ub: 2 * T + 10 },
    linkDelayMs: Number(values.delay),
    joinSeconds: round(joinSeconds),
    stormSeconds: round((lastStormDelivery - t0) / 1000),
    agreementSeconds: round((tAgree - t0) / 1000),
    relayElectionDurationSeconds:
      stats.election.duration === null ? null : round(stats.election.duration / 1000),
    expected,
    measured,
    sentByBots,
    deliveredToBots: deliveredByType,
    relayMessages: stats.messages,
    drops: stats.drops,
    lost,
    droppedToCrashed,
    agreed: true,
    countsMatch:
      measured.ELECTION === expected.ELECTION &&
      measured.OK === expected.OK &&
      measured.COORDINATOR === expected.COORDINATOR,
    linkCount: stats.linkCount,
    relayPeakHeldSampled: peakHeld,
    cpu: {
      relaySeconds: round(relayCpuSeconds),
      botsSeconds: round(botsCpuSeconds),
      relayMicrosPerMessage: round((relayCpuSeconds * 1e6) / stats.election.messages),
      botsMicrosPerMessage: round((botsCpuSeconds * 1e6) / stats.election.messages),
    },
    memory: {
      relayRssEmptyMiB: mib(memEmpty.rss),
      relayRssJoinedMiB: mib(memJoined.rss),
      relayRssPerProcessKiB: round((memJoined.rss - memEmpty.rss) / N / 1024),
      relayRssEndMiB: mib(memEnd.rss),
      relayHeapEndAfterGcMiB: mib(memEndGc.heapUsed),
      relayPeakRssMiB: mib(Math.max(memEnd.maxRss, peakRelayRss)),
      botsPeakRssMiB: mib(botsUsage.maxRSS * 1024),
    },
  };
  log(
    `agreement on ${N - 2} after ${result.agreementSeconds} s; storm (last ELECTION/OK delivered) ${result.stormSeconds} s`,
  );
  line.done();
  console.log(
    `\n| message | N(N-1)/2, (N-1)(N-2)/2, N-2 | relay counted | bots sent |\n|---|---|---|---|`,
  );
  for (const k of ['ELECTION', 'OK', 'COORDINATOR'] as const)
    console.log(`| ${k} | ${expected[k]} | ${measured[k]} | ${sentByBots[k] ?? 0} |`);
  console.log(
    `\nlost ${lost}; dropped to the crashed ${N - 1}: ${droppedToCrashed}; relay messages ${JSON.stringify(stats.messages.sent)} sent / ${stats.messages.delivered} delivered`,
  );
  console.log(`memory: ${JSON.stringify(result.memory)}`);
  console.log(`cpu: ${JSON.stringify(result.cpu)}`);
  await writeFile(values.out, JSON.stringify(result, null, 2) + '\n');
  console.log(
    `wrote ${values.out}; counts ${result.countsMatch ? 'match' : 'DO NOT match'} the formulas`,
  );
  process.exitCode = result.countsMatch && lost === 0 ? 0 : 1;
} finally {
  fleet?.stop();
  await sleep(300);
  await stopServer(relay as ChildHandle);
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
