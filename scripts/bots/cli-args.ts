// The bot CLI's arguments, parsed into a value (errors are values): npm run bots -- --help.
import { parseArgs } from 'node:util';
import {
  ALGORITHM_NAMES,
  type AlgorithmName,
  type ProcessId,
  type Timing,
} from '@shared/algorithms/algorithm.ts';
import type { BotTransport } from '@shared/lab-client/node-channel.ts';

export interface BotArgs {
  url: string;
  lab: string;
  count: number;
  ids: ProcessId[] | null;
  algorithm: AlgorithmName | null;
  transport: BotTransport;
  timing: Partial<Timing>;
  /** Leave after this many seconds; null: run until Ctrl-C. */
  duration: number | null;
  /** Seconds between status lines. */
  interval: number;
  name: string;
  parallel: number;
}

export const USAGE = `Usage: npm run bots -- --lab NAME --count N [options]
  --url URL[,URL...]     relay origin (default http://127.0.0.1:3000); a cluster's relays, comma-separated
  --lab NAME             lab to join (required)
  --count N              how many processes (default: as many as --ids lists)
  --ids 10-40,50         ids to claim (default: the lab's next free ids)
  --algorithm NAME       run this instead of the lab's algorithm (${ALGORITHM_NAMES.join(', ')})
  --transport T          socketio (default) or ws
  --transmission MS --processing MS --heartbeat-interval MS --heartbeat-timeout MS
                         override the lab's timing bounds
  --duration S           leave after S seconds (default: run until Ctrl-C)
  --interval S           seconds between status lines (default 1)
  --name PREFIX          dashboard name prefix (default "bot")
  --parallel N           joins in flight at once (default 50)`;

/** "10-40,50,52-53" -> ascending unique ids. */
export function parseIds(text: string): ProcessId[] | string {
  const ids = new Set<ProcessId>();
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return `bad id range "${part}"`;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) return `bad id range "${part}": ${hi} < ${lo}`;
    if (hi - lo >= 5000 || ids.size + hi - lo >= 5000) return 'at most 5000 ids';
    for (let id = lo; id <= hi; id++) ids.add(id);
  }
  return ids.size ? [...ids].sort((a, b) => a - b) : 'no ids given';
}

export function parseBotArgs(
  argv: string[],
): { ok: true; args: BotArgs } | { ok: false; error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string', default: 'http://127.0.0.1:3000' },
        lab: { type: 'string' },
        count: { type: 'string' },
        ids: { type: 'string' },
        algorithm: { type: 'string' },
        transport: { type: 'string', default: 'socketio' },
        transmission: { type: 'string' },
        processing: { type: 'string' },
        'heartbeat-interval': { type: 'string' },
        'heartbeat-timeout': { type: 'string' },
        duration: { type: 'string' },
        interval: { type: 'string', default: '1' },
        name: { type: 'string', default: 'bot' },
        parallel: { type: 'string', default: '50' },
      },
    }));
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (!values.lab) return { ok: false, error: '--lab is required' };
  const ids = values.ids === undefined ? null : parseIds(values.ids);
  if (typeof ids === 'string') return { ok: false, error: `--ids: ${ids}` };
  const count = values.count === undefined ? (ids?.length ?? NaN) : Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 5000)
    return { ok: false, error: '--count must be a whole number from 1 to 5000 (or give --ids)' };
  if (ids && count > ids.length)
    return { ok: false, error: `--count ${count} but --ids lists only ${ids.length}` };
  const algorithm = values.algorithm ?? null;
  if (algorithm !== null && !(ALGORITHM_NAMES as readonly string[]).includes(algorithm))
    return { ok: false, error: `--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}` };
  if (values.transport !== 'socketio' && values.transport !== 'ws')
    return { ok: false, error: '--transport must be socketio or ws' };
  const timing: Partial<Timing> = {};
  const fields = [
    ['transmission', 'transmission'],
    ['processing', 'processing'],
    ['heartbeat-interval', 'heartbeatInterval'],
    ['heartbeat-timeout', 'heartbeatTimeout'],
  ] as const;
  for (const [flag, key] of fields) {
    const v = values[flag];
    if (v === undefined) continue;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n > 600_000)
      return { ok: false, error: `--${flag} must be a number of ms` };
    timing[key] = n;
  }
  const duration = values.duration === undefined ? null : Number(values.duration);
  if (duration !== null && !(duration > 0))
    return { ok: false, error: '--duration must be a positive number of seconds' };
  const interval = Number(values.interval);
  const parallel = Number(values.parallel);
  if (!(interval > 0)) return { ok: false, error: '--interval must be positive' };
  if (!Number.isInteger(parallel) || parallel < 1)
    return { ok: false, error: '--parallel must be a positive whole number' };
  return {
    ok: true,
    args: {
      url: values.url,
      lab: values.lab,
      count,
      ids: ids ? ids.slice(0, count) : null,
      algorithm: algorithm as AlgorithmName | null,
      transport: values.transport,
      timing,
      duration,
      interval,
      name: values.name,
      parallel,
    },
  };
}
