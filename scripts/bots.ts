// npm run bots -- --url http://127.0.0.1:3000 --lab NAME --count N [--ids 10-40] [--algorithm bully]
//                 [--transport socketio|ws] [--duration S]      (--help for every option)
// Starts N headless processes in this Node process (shared/lab-client/bot-fleet.ts), prints a status line
// every second, and on Ctrl-C (or after --duration) leaves the lab and prints a summary.
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { parseBotArgs, USAGE } from './bots/cli-args.ts';
import { statusLine, summary } from './bots/fleet-view.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const parsed = parseBotArgs(argv);
if (!parsed.ok) {
  console.error(`${parsed.error}\n\n${USAGE}`);
  process.exit(2);
}
const a = parsed.args;
// A comma list names several relays of a cluster: join through the first, fail over to the others.
const [primary, ...others] = a.url
  .split(',')
  .map((u) => u.trim())
  .filter(Boolean);
const fleet = new BotFleet({
  lab: a.lab,
  channel: () => nodeChannel(primary ?? a.url, a.transport),
  follow: (url) => nodeChannel(url, a.transport),
  relays: [...others, ...(primary ? [primary] : [])],
  count: a.count,
  ...(a.ids ? { ids: a.ids } : {}),
  ...(a.algorithm ? { algorithm: a.algorithm } : {}),
  ...(Object.keys(a.timing).length ? { timing: a.timing } : {}),
  parallel: a.parallel,
  name: (i) => `${a.name}${i + 1}`,
});

const started = performance.now();
const tty = process.stdout.isTTY;
let last = { at: started, sent: 0, received: 0 };
const tick = (): void => {
  const now = performance.now();
  const c = fleet.counters;
  const line = statusLine(fleet.status(), c, {
    sentDelta: c.sent - last.sent,
    receivedDelta: c.received - last.received,
    seconds: (now - last.at) / 1000,
  });
  last = { at: now, sent: c.sent, received: c.received };
  if (tty) process.stdout.write(`\r\x1b[2K${line}`);
  else console.log(line);
};
const ticker = setInterval(tick, a.interval * 1000);

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) process.exit(1);
  stopping = true;
  clearInterval(ticker);
  tick();
  if (tty) process.stdout.write('\n');
  const status = fleet.status();
  fleet.stop();
  // Let the leave frames go out before the sockets close for good.
  await new Promise((r) => setTimeout(r, 300));
  console.log(summary(status, fleet.counters, (performance.now() - started) / 1000));
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

console.log(
  `joining ${a.count} processes to lab "${a.lab}" at ${a.url} over ${a.transport}${a.algorithm ? `, running ${a.algorithm}` : ''} (Ctrl-C leaves)`,
);
const result = await fleet.start();
if (tty) process.stdout.write('\n');
console.log(
  `joined ${result.joined.length}${result.joined.length ? ` (ids ${compact(result.joined)})` : ''}${result.refused.length ? `; refused ${result.refused.length}: ${[...new Set(result.refused.map((r) => r.message))].join('; ')}` : ''}`,
);
if (result.joined.length === 0) await shutdown(1);
if (a.duration !== null) setTimeout(() => void shutdown(0), a.duration * 1000);

/** [1,2,3,7] -> "1-3,7" */
function compact(ids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    out.push(i === j ? `${ids[i]}` : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return out.join(',');
}
