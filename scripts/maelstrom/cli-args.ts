// The arguments of `npm run maelstrom` and `npm run maelstrom-node` (docs/MAELSTROM.md), parsed
// into values; a usage error is a value naming the option.
import { parseArgs } from 'node:util';
import {
  ALGORITHM_NAMES,
  type AlgorithmName,
  type DetectorMode,
  type ProcessId,
  type Timing,
} from '@shared/algorithms/algorithm.ts';
import type { BotTransport } from '@shared/lab-client/node-channel.ts';
import { MAX_PROCESS_ID } from '@shared/protocol/lab-config.ts';

export const HOST_USAGE = `Usage: npm run maelstrom -- --lab NAME [options] -- ./my-node [arg...]

Runs a Maelstrom-protocol executable (one JSON message a line on stdin and stdout, init/init_ok,
logs on stderr) as one process of a lab: its messages go through the relay, the instructor's
crash kills it (SIGKILL) and recover starts it afresh with a new init. docs/MAELSTROM.md.

  --url URL            relay origin (default http://127.0.0.1:3000)
  --lab NAME           lab to join (required)
  --id N               the id to claim (the node is "n<N>"; default: the lab's next free id)
  --name NAME          dashboard name (default: the node's file name, else the command)
  --transport T        ws (default) or socketio
  --init-timeout MS    how long the node may take to answer init (default 10000)
  --help               this text

Exit status: 0 left on Ctrl-C or SIGTERM; 1 the relay refused the join; 2 a usage error;
3 the node did not answer init in time; 4 it kept exiting on its own; 5 it could not be started.`;

export interface HostArgs {
  url: string;
  lab: string;
  id: ProcessId | null;
  name: string | null;
  transport: BotTransport;
  initTimeoutMs: number;
  command: string;
  args: string[];
}

type Parsed<T> = { ok: true; args: T } | { ok: false; error: string };

/** Whole number in [lo, hi], or null. */
function whole(text: string | undefined, lo: number, hi: number): number | null {
  const n = Number(text);
  return text !== undefined && /^\d+$/.test(text) && n >= lo && n <= hi ? n : null;
}

export function parseHostArgs(argv: string[]): Parsed<HostArgs> {
  const cut = argv.indexOf('--');
  const own = cut === -1 ? argv : argv.slice(0, cut);
  const [command, ...args] = cut === -1 ? [] : argv.slice(cut + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      options: {
        url: { type: 'string', default: 'http://127.0.0.1:3000' },
        lab: { type: 'string' },
        id: { type: 'string' },
        name: { type: 'string' },
        transport: { type: 'string', default: 'ws' },
        'init-timeout': { type: 'string', default: '10000' },
      },
    }));
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (!values.lab) return { ok: false, error: '--lab is required' };
  if (!command) return { ok: false, error: 'no executable: give it after --, e.g. -- ./my-node' };
  const id = values.id === undefined ? null : whole(values.id, 0, MAX_PROCESS_ID);
  if (values.id !== undefined && id === null)
    return { ok: false, error: `--id must be a whole number from 0 to ${MAX_PROCESS_ID}` };
  if (values.transport !== 'socketio' && values.transport !== 'ws')
    return { ok: false, error: '--transport must be ws or socketio' };
  const initTimeoutMs = whole(values['init-timeout'], 1, 600_000);
  if (initTimeoutMs === null)
    return { ok: false, error: '--init-timeout must be a whole number of ms from 1 to 600000' };
  if (values.name !== undefined && values.name.length > 40)
    return { ok: false, error: '--name takes at most 40 characters' };
  // The dashboard's default name: the node's file (`python3 bully_node.py` -> bully_node.py), else the command.
  const file = [command, ...args].find((x) => x.includes('/') || /\.\w+$/.test(x)) ?? command;
  const name = values.name ?? file.split('/').pop()!.slice(0, 40);
  return {
    ok: true,
    args: {
      url: values.url,
      lab: values.lab,
      id,
      name,
      transport: values.transport,
      initTimeoutMs,
      command,
      args,
    },
  };
}

export const NODE_USAGE = `Usage: npm run maelstrom-node -- --algorithm NAME [options]

Runs one of the lab's reference algorithms as a Maelstrom node on stdin and stdout, with real
timers as the bots have: it answers init with init_ok, takes node "n<k>" to be process k, and
sends the algorithm's messages as Maelstrom lines. Logs (and its beliefs) go to stderr; when
init came from "lab" (npm run maelstrom), its beliefs also go to "lab" as report lines.

  --algorithm NAME       ${ALGORITHM_NAMES.join(' | ')} (required)
  --detector D           heartbeat (default) | poll | none
  --transmission MS --processing MS --heartbeat-interval MS --heartbeat-timeout MS
                         the timing bounds (default: init's "lab" field, else 100, 10, 500, 1500)
  --seed N               the random generator's seed (default: from the clock)
  --help                 this text

Exit status: 0 stdin ended; 2 a usage error.`;

export interface NodeArgs {
  algorithm: AlgorithmName;
  detector: DetectorMode | null;
  timing: Partial<Timing>;
  seed: number | null;
}

export function parseNodeArgs(argv: string[]): Parsed<NodeArgs> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        algorithm: { type: 'string' },
        detector: { type: 'string' },
        transmission: { type: 'string' },
        processing: { type: 'string' },
        'heartbeat-interval': { type: 'string' },
        'heartbeat-timeout': { type: 'string' },
        seed: { type: 'string' },
      },
    }));
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const algorithm = values.algorithm;
  if (!algorithm || !(ALGORITHM_NAMES as readonly string[]).includes(algorithm))
    return { ok: false, error: `--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}` };
  const detector = values.detector ?? null;
  if (detector !== null && !['heartbeat', 'poll', 'none'].includes(detector))
    return { ok: false, error: '--detector must be heartbeat, poll or none' };
  const timing: Partial<Timing> = {};
  const fields = [
    ['transmission', 'transmission'],
    ['processing', 'processing'],
    ['heartbeat-interval', 'heartbeatInterval'],
    ['heartbeat-timeout', 'heartbeatTimeout'],
  ] as const;
  for (const [flag, key] of fields) {
    if (values[flag] === undefined) continue;
    const lo = key === 'processing' ? 0 : 1;
    const n = whole(
      values[flag],
      lo,
      key === 'transmission' || key === 'processing' ? 60_000 : 600_000,
    );
    if (n === null)
      return {
        ok: false,
        error: `--${flag} must be a whole number of ms (the lab's bounds: docs/PROTOCOL.md)`,
      };
    timing[key] = n;
  }
  const seed = values.seed === undefined ? null : whole(values.seed, 0, 2 ** 31 - 1);
  if (values.seed !== undefined && seed === null)
    return { ok: false, error: '--seed must be a whole number' };
  return {
    ok: true,
    args: {
      algorithm: algorithm as AlgorithmName,
      detector: detector as DetectorMode | null,
      timing,
      seed,
    },
  };
}
