// Issue 29: the runner behind `npm run maelstrom` (scripts/maelstrom/node-runner.ts), driven
// directly with small misbehaving nodes (test/fixtures/maelstrom/bad-node.mjs): what it gives the
// node and when, what it drops and counts, how it treats a node that exits, stalls, cannot start
// or answers the wrong init, and that a crash kills whatever the node started.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  type Message,
  type ProcessId,
  type Report,
} from '@shared/algorithms/algorithm.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';
import { algorithmConfig, type HostFault } from '@shared/sim/process-host.ts';
import { EXIT, MaelstromRunner, newCounters } from '../../scripts/maelstrom/node-runner.ts';
import { waitFor } from '../helpers/relay-harness.ts';
import { alive, procStat } from '../helpers/proc.ts';

const NODE = fileURLToPath(new URL('../fixtures/maelstrom/bad-node.mjs', import.meta.url));
const CONFIG: ProcessConfig = {
  algorithm: 'bully',
  ids: [0, 3, 7],
  ring: [],
  timing: DEFAULT_TIMING,
  detector: 'heartbeat',
  options: {},
  seed: 1,
};
const running: MaelstromRunner[] = [];
afterEach(() => void running.splice(0).forEach((r) => r.stop()));

function run(mode: string, opts: { command?: string; initTimeoutMs?: number } = {}) {
  const logs: string[] = [];
  const fatal: { message: string; code: number }[] = [];
  const sent: { to: ProcessId; message: Message }[] = [];
  const reports: Report[] = [];
  const faults: HostFault[] = [];
  const counters = newCounters();
  const io = {
    send: (to: ProcessId, message: Message) => void sent.push({ to, message }),
    report: (r: Report) => void reports.push(r),
    fault: (f: HostFault) => void faults.push(f),
    setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimer: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
    now: () => performance.now(),
    random: () => 0.5,
  };
  const spec = {
    command: opts.command ?? process.execPath,
    args: opts.command ? [] : [NODE, mode],
    initTimeoutMs: opts.initTimeoutMs ?? 10_000,
  };
  const runner = new MaelstromRunner(spec, CONFIG, io, {
    counters,
    log: (l) => void logs.push(l),
    fatal: (message, code) => void fatal.push({ message, code }),
  });
  running.push(runner);
  runner.start(algorithmConfig(CONFIG, 3));
  return { runner, logs, fatal, sent, reports, faults, counters };
}

describe('MaelstromRunner', () => {
  it('gives the node nothing before init_ok, then each lab message as its body with only the fields the algorithm has, and elect from lab', async () => {
    const r = run('echo');
    r.runner.deliver(7, { type: 'OK', election: 1 });
    expect(r.counters.beforeInit).toBe(1);
    // Until the node has answered, messages are counted and dropped; then the first one shows up.
    await waitFor(
      () => {
        r.runner.deliver(7, { type: 'OK', election: 2, in_reply_to: 5, extra: 'x' });
        return r.logs.some((l) => l.startsWith('[n3] got '));
      },
      60_000,
      'a message given to the node',
    );
    expect(r.logs.find((l) => l.startsWith('[n3] got '))).toBe(
      '[n3] got {"src":"n7","dest":"n3","body":{"type":"OK","election":2}}',
    );
    const shown = r.logs.length;
    r.runner.deliver(7, { type: 'HELLO' });
    r.runner.deliver(7, { type: 'OK', election: 'two' });
    expect(r.counters.ignored).toBe(2);
    r.runner.elect();
    await waitFor(
      () => r.logs.slice(shown).some((l) => l.includes('"src":"lab"')),
      60_000,
      'elect',
    );
    // (The polling above may have put a few more OKs on the way.)
    const later = r.logs
      .slice(shown)
      .filter(
        (l) => l.startsWith('[n3] got ') && !l.endsWith('"body":{"type":"OK","election":2}}'),
      );
    expect(later).toEqual(['[n3] got {"src":"lab","dest":"n3","body":{"type":"elect"}}']);
    expect(r.runner.isRunning).toBe(true);
    expect(r.fatal).toEqual([]);
  }, 120_000);

  it('refuses an init_ok that answers another msg_id, and gives up when no right one comes in time (exit 3)', async () => {
    // Long enough for the node to start and answer on a loaded machine.
    const r = run('wrong-reply', { initTimeoutMs: 8000 });
    await waitFor(() => r.logs.length > 0, 60_000, 'the wrong init_ok');
    expect(r.logs).toEqual([
      "n3 stdout line 1: refused, init_ok must have in_reply_to 1 (the init's msg_id)",
    ]);
    await waitFor(() => r.fatal.length > 0, 60_000, 'the init timeout');
    expect(r.fatal).toEqual([
      {
        code: EXIT.noInitOk,
        message: expect.stringMatching(
          /^n3 \(.*\) did not answer init with init_ok within 8000 ms$/,
        ),
      },
    ]);
  }, 120_000);

  it('starts a node that exits by itself afresh, a fault each time, and gives up at the third exit within 10 s (exit 4)', async () => {
    const r = run('exit');
    await waitFor(() => r.fatal.length > 0, 60_000, 'the runner to give up');
    expect(r.faults).toEqual([
      { error: 'the node exited with code 1', event: 'exit', restarted: true },
      { error: 'the node exited with code 1', event: 'exit', restarted: true },
      { error: 'the node exited with code 1', event: 'exit', restarted: false },
    ]);
    expect(r.counters.runs).toBe(3);
    expect(r.fatal[0]!.code).toBe(EXIT.keepsExiting);
  }, 120_000);

  it('drops and counts lab messages once a node that stopped reading holds 1 MiB of them', async () => {
    const r = run('stall');
    await waitFor(
      () => {
        for (let i = 0; i < 2000; i++)
          r.runner.deliver(7, { type: 'ELECTION', election: i, term: i });
        return r.counters.stdinFull > 0;
      },
      60_000,
      'stdin to fill',
    );
    expect(r.fatal).toEqual([]);
  }, 120_000);

  it('says so when the executable cannot be started (exit 5)', async () => {
    const r = run('', { command: '/nonexistent/maelstrom-node' });
    await waitFor(() => r.fatal.length > 0, 60_000, 'the spawn error');
    expect(r.fatal[0]).toMatchObject({
      code: EXIT.cannotStart,
      message: expect.stringMatching(/^cannot start \/nonexistent\/maelstrom-node: .*ENOENT/),
    });
    // Given up once, not started again and again.
    await new Promise((res) => setTimeout(res, 200));
    expect(r.fatal.length).toBe(1);
    expect(r.counters.runs).toBe(1);
    expect(r.runner.isRunning).toBe(false);
  }, 120_000);

  it.runIf(process.platform !== 'win32')(
    'a node that exits by itself leaves nothing it started behind',
    async () => {
      const r = run('fork-exit');
      await waitFor(
        () => r.faults.length > 0 && r.logs.some((l) => /^\[n3\] grandchild \d+$/.test(l)),
        60_000,
        'the first exit',
      );
      const pid = Number(/(\d+)$/.exec(r.logs.find((l) => l.includes('grandchild'))!)![1]);
      await waitFor(() => !alive(pid), 60_000, 'the grandchild to be killed');
      await waitFor(() => r.fatal.length > 0, 60_000, 'the runner to give up');
    },
    120_000,
  );

  it.runIf(process.platform !== 'win32')(
    'a crash (stop) kills the node and whatever it started, with SIGKILL to its process group',
    async () => {
      const r = run('fork');
      await waitFor(
        () => r.logs.some((l) => /^\[n3\] grandchild \d+$/.test(l)),
        60_000,
        'the grandchild',
      );
      const pid = Number(/(\d+)$/.exec(r.logs.find((l) => l.includes('grandchild'))!)![1]);
      expect(alive(pid)).toBe(true);
      r.runner.stop();
      expect(r.runner.isRunning).toBe(false);
      await waitFor(() => !alive(pid), 60_000, 'the grandchild to be killed');
    },
    120_000,
  );

  it.runIf(process.platform === 'linux')(
    'a pause stops the node and what it started (SIGSTOP to its group: state T), a resume continues them (SIGCONT)',
    async () => {
      const r = run('fork');
      await waitFor(
        () => r.logs.some((l) => /^\[n3\] grandchild \d+$/.test(l)),
        60_000,
        'the grandchild',
      );
      const grandchild = Number(/(\d+)$/.exec(r.logs.find((l) => l.includes('grandchild'))!)![1]);
      const node = procStat(grandchild).ppid;
      expect(procStat(node).state).not.toBe('T');
      r.runner.pause();
      await waitFor(
        () => procStat(node).state === 'T' && procStat(grandchild).state === 'T',
        60_000,
        'both stopped',
      );
      r.runner.resume();
      await waitFor(
        () => procStat(node).state !== 'T' && procStat(grandchild).state !== 'T',
        60_000,
        'both running again',
      );
      // A crash while paused still kills it (SIGKILL reaches a stopped process).
      r.runner.pause();
      await waitFor(() => procStat(node).state === 'T', 60_000, 'stopped again');
      r.runner.stop();
      await waitFor(() => !alive(grandchild) && !alive(node), 60_000, 'both killed');
    },
    120_000,
  );
});
