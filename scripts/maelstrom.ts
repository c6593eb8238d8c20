// npm run maelstrom -- --url URL --lab LAB [--id N] [--transport ws|socketio] -- ./my-node arg...
// A Maelstrom-protocol executable as one process of a lab (docs/MAELSTROM.md). It joins through
// the lab client every bot uses (LabProcess: resume, reconnection, the relay's limits as they
// are), in `code` mode with a runner that is the executable (scripts/maelstrom/node-runner.ts).
// stdout: what happens to the process; stderr: the node's stderr, prefixed, and every line of
// its stdout that was refused, with its number.
import { LabProcess } from '@shared/lab-client/lab-client.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { nodeName } from '@shared/protocol/maelstrom.ts';
import { handleHelp, usageError } from './cli.ts';
import { HOST_USAGE, parseHostArgs } from './maelstrom/cli-args.ts';
import { EXIT, MaelstromRunner, newCounters, type RunnerHooks } from './maelstrom/node-runner.ts';

const argv = process.argv.slice(2);
// Only the host's own options: `--help` after `--` belongs to the node.
handleHelp(argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv, HOST_USAGE);
const parsed = parseHostArgs(argv);
if (!parsed.ok) usageError('maelstrom', HOST_USAGE, parsed.error);
const a = parsed.args;

const counters = newCounters();
let stopping = false;
const hooks: RunnerHooks = {
  counters,
  log: (line) => void process.stderr.write(`${line}\n`),
  fatal: (message, code) => {
    console.error(`maelstrom: ${message}`);
    void shutdown(code);
  },
};
const spec = { command: a.command, args: a.args, initTimeoutMs: a.initTimeoutMs };
let wasCrashed = false;
let wasPaused = false;
let rejoining = false;
const proc = new LabProcess({
  channel: nodeChannel(a.url, a.transport),
  lab: a.lab,
  ...(a.id !== null ? { id: a.id } : {}),
  ...(a.name ? { name: a.name } : {}),
  kind: 'external',
  onEvent: (e) => {
    if (e.kind === 'status' && e.status === 'crashed') {
      wasCrashed = true;
      wasPaused = false;
      console.log(`crashed by the instructor: ${a.command} killed (SIGKILL)`);
    } else if (e.kind === 'status' && e.status === 'paused') {
      wasPaused = true;
      console.log(
        `paused by the instructor: ${a.command} stopped (${process.platform === 'win32' ? 'no SIGSTOP here; the relay holds its messages' : 'SIGSTOP'})`,
      );
    } else if (e.kind === 'status' && e.status === 'up' && wasPaused) {
      wasPaused = false;
      console.log(
        `resumed: ${a.command} continues (${process.platform === 'win32' ? 'the relay delivers what it held' : 'SIGCONT'})`,
      );
    } else if (e.kind === 'status' && e.status === 'up' && wasCrashed) {
      wasCrashed = false;
      console.log(`recovered: ${a.command} started afresh with a new init`);
    } else if (e.kind === 'status' && e.status === 'connecting' && proc.id !== null) {
      rejoining = true;
      console.log('connection lost; rejoining with the resume token');
    } else if (e.kind === 'joined' && rejoining) {
      rejoining = false;
      console.log(`rejoined as ${nodeName(e.id)}`);
    } else if (e.kind === 'status' && e.status === 'left')
      void shutdown(0, 'the lab let this process go (left)');
    else if (e.kind === 'error' && e.error.ref === undefined)
      console.error(`relay: ${e.error.code} ${e.error.message}`);
  },
});
proc.setMode(
  'code',
  (config, io, listener) => new MaelstromRunner(spec, config, io, hooks, listener),
);

async function shutdown(code: number, why?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (why) console.log(why);
  proc.stop();
  // Let the leave frame go out before the socket closes for good.
  await new Promise((r) => setTimeout(r, 300));
  const c = counters;
  console.log(
    `${proc.id === null ? 'node' : nodeName(proc.id)}: ${c.runs} run(s), ${c.lines} stdout lines: ${c.sent} messages sent, ${c.reports} reports, ${c.refused} refused, ${c.overlong} too long, ${c.rateLimited} over the rate; lab messages not given to it: ${c.beforeInit} before init_ok, ${c.stdinFull} stdin full, ${c.ignored} not fitting the algorithm`,
  );
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

console.log(
  `joining lab "${a.lab}" at ${a.url} over ${a.transport} (Ctrl-C stops; an unreachable relay is retried)`,
);
try {
  const id = await proc.start();
  console.log(
    `joined lab "${a.lab}" at ${a.url} as ${nodeName(id)} (id ${id}), running ${[a.command, ...a.args].join(' ')}`,
  );
} catch (err) {
  const e = err as { code?: string; message?: string };
  console.error(
    `maelstrom: the relay refused the join: ${e.code ?? ''} ${e.message ?? String(err)}`,
  );
  await shutdown(EXIT.refused);
}
