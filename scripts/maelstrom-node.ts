// npm run maelstrom-node -- --algorithm bully [--detector heartbeat|poll|none] [timing...]
// One of the lab's reference algorithms as a Maelstrom node (docs/MAELSTROM.md): stdin and stdout
// carry Maelstrom lines, stderr the log. It runs the pure algorithm in the one process host
// (shared/sim/process-host.ts) with real timers, as a bot does. Node "n<k>" is process k.
import type { AlgorithmConfig, Message, ProcessId, Report } from '@shared/algorithms/algorithm.ts';
import { DEFAULT_TIMING } from '@shared/algorithms/algorithm.ts';
import { getAlgorithm } from '@shared/algorithms/registry.ts';
import { LAB_NODE, nodeId, nodeName, readInboundLine } from '@shared/protocol/maelstrom.ts';
import { DetectorSchema, TimingSchema } from '@shared/protocol/lab-config.ts';
import { ProcessHost } from '@shared/sim/process-host.ts';
import { createRng, deriveSeed } from '@shared/sim/rng.ts';
import { handleHelp, usageError } from './cli.ts';
import { NODE_USAGE, parseNodeArgs } from './maelstrom/cli-args.ts';
import { LineReader } from './maelstrom/line-reader.ts';

/** A stdin line longer than this is skipped (Maelstrom's messages are small; ours are at most a relay frame). */
const MAX_LINE_BYTES = 1024 * 1024;
/** Bytes of stdout not yet taken by whoever reads it; past it, lines are dropped and counted. */
const MAX_STDOUT_BYTES = 1024 * 1024;

const argv = process.argv.slice(2);
handleHelp(argv, NODE_USAGE);
const parsed = parseNodeArgs(argv);
if (!parsed.ok) usageError('maelstrom-node', NODE_USAGE, parsed.error);
const a = parsed.args;

const t0 = performance.now();
let self: ProcessId | null = null;
let host: ProcessHost | null = null;
/** Beliefs go to "lab" as report lines only when the lab's host sent init (Maelstrom knows no "lab"). */
let reportsToLab = false;
let msgIds = 0;
/** Lines dropped since the last one written, because stdout held MAX_STDOUT_BYTES unread. */
let dropped = 0;

const log = (text: string) => void process.stderr.write(`${text}\n`);
function write(dest: string, body: Record<string, unknown>): void {
  // A reader that stopped reading (a stopped Maelstrom, a full pipe) must not grow this process without bound.
  if (process.stdout.writableLength > MAX_STDOUT_BYTES) {
    if (dropped++ === 0)
      log(`stdout holds ${MAX_STDOUT_BYTES} bytes unread: dropping lines until it drains`);
    return;
  }
  if (dropped) log(`stdout drained: ${dropped} lines were dropped`);
  dropped = 0;
  process.stdout.write(
    `${JSON.stringify({ src: nodeName(self!), dest, body: { ...body, msg_id: ++msgIds } })}\n`,
  );
}

/** init: answer init_ok and start the algorithm afresh (a second init is a restart). */
function init(src: string, body: Message, msgId: number | undefined): void {
  const me = nodeId(body['node_id']);
  const names = Array.isArray(body['node_ids']) ? body['node_ids'] : [];
  const ids = names.map(nodeId);
  if (me === null || ids.length === 0 || ids.some((id) => id === null) || !ids.includes(me)) {
    return log(
      `init refused: node_id and node_ids must name nodes "n<k>" (k a whole number), node_id among node_ids; got ${JSON.stringify(body).slice(0, 200)}`,
    );
  }
  self = me;
  reportsToLab = src === LAB_NODE;
  write(src, { type: 'init_ok', in_reply_to: msgId });
  // Our host's init carries the lab's settings; the command's options win over them.
  const lab = (
    typeof body['lab'] === 'object' && body['lab'] !== null ? body['lab'] : {}
  ) as Record<string, unknown>;
  const labTiming = TimingSchema.safeParse(lab['timing']);
  const labDetector = DetectorSchema.safeParse(lab['detector']);
  if (typeof lab['algorithm'] === 'string' && lab['algorithm'] !== a.algorithm)
    log(`note: the lab runs ${lab['algorithm']}, this node ${a.algorithm}`);
  const config: AlgorithmConfig = {
    self: me,
    ids: (ids as ProcessId[]).sort((x, y) => x - y),
    ring: (ids as ProcessId[]).sort((x, y) => x - y),
    timing: { ...DEFAULT_TIMING, ...(labTiming.success ? labTiming.data : {}), ...a.timing },
    detector: a.detector ?? (labDetector.success ? labDetector.data : 'heartbeat'),
  };
  host?.stop();
  host = new ProcessHost(getAlgorithm(a.algorithm), {
    send: (to, message) => write(nodeName(to), message),
    report: (report: Report) => {
      log(`report ${JSON.stringify(report)}`);
      if (reportsToLab) write(LAB_NODE, { ...report, type: 'report' });
    },
    fault: (f) =>
      log(
        `the algorithm threw on ${f.event}: ${f.error}${f.restarted ? '; restarted' : '; stopped'}`,
      ),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    now: () => performance.now() - t0,
    random: createRng(deriveSeed(a.seed ?? Date.now() % 2 ** 31, me)),
  });
  log(
    `${nodeName(me)}: ${a.algorithm} among ${config.ids.map(nodeName).join(' ')}, detector ${config.detector}, timing ${JSON.stringify(config.timing)}`,
  );
  host.start(config);
}

function onLine(text: string, n: number): void {
  const line = readInboundLine(text);
  if (!line) return log(`stdin line ${n}: not a Maelstrom message, ignored`);
  const { src, body, msgId } = line;
  if (body.type === 'init') return init(src, body, msgId);
  // Before init this node has no name to answer with: Maelstrom sends init first.
  if (self === null || !host) return log(`stdin line ${n}: ${body.type} before init, ignored`);
  const from = nodeId(src);
  if (from !== null) return host.deliver(from, body);
  if (src === LAB_NODE && body.type === 'elect') return host.elect();
  // A Maelstrom client's request (a workload): this node serves none.
  if (msgId !== undefined)
    write(src, {
      type: 'error',
      in_reply_to: msgId,
      code: 10,
      text: `not supported: ${body.type}`,
    });
  log(`stdin line ${n}: ${body.type} from ${src} is not supported`);
}

const reader = new LineReader(MAX_LINE_BYTES, (e) =>
  e.kind === 'line' ? onLine(e.text, e.n) : log(`stdin line ${e.n}: ${e.bytes} bytes, skipped`),
);
process.stdin.on('data', (b: Buffer) => reader.push(b));
process.stdin.on('end', () => {
  reader.end();
  host?.stop();
  process.exit(0);
});
