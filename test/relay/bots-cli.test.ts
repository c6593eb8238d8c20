// The bot CLI (scripts/bots.ts): its arguments, and a whole run against the real relay that
// joins, reports a coordinator, and leaves the lab when its time is up.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBotArgs, parseIds } from '../../scripts/bots/cli-args.ts';
import { nodeChannel } from '@shared/lab-client/node-channel.ts';
import { BotFleet } from '@shared/lab-client/bot-fleet.ts';
import { startRelay, type Harness } from '../helpers/relay-harness.ts';

describe('bot CLI arguments', () => {
  it('reads id ranges and lists, sorted and without repeats', () => {
    expect(parseIds('10-13,2,11')).toEqual([2, 10, 11, 12, 13]);
    expect(parseIds('7')).toEqual([7]);
    expect(parseIds('5-3')).toMatch(/bad id range/);
    expect(parseIds('a-b')).toMatch(/bad id range/);
    expect(parseIds('0-99999')).toMatch(/at most 5000/);
  });

  it('takes the count from --ids, the first --count of them, and the timing overrides', () => {
    const a = parseBotArgs(['--lab', 'x', '--ids', '10-40']);
    expect(a.ok && [a.args.count, a.args.ids?.length, a.args.transport, a.args.algorithm]).toEqual([
      31,
      31,
      'socketio',
      null,
    ]);
    const b = parseBotArgs([
      '--lab',
      'x',
      '--ids',
      '10-40',
      '--count',
      '3',
      '--transport',
      'ws',
      '--algorithm',
      'ring',
      '--transmission',
      '80',
    ]);
    expect(b.ok && [b.args.ids, b.args.transport, b.args.algorithm, b.args.timing]).toEqual([
      [10, 11, 12],
      'ws',
      'ring',
      { transmission: 80 },
    ]);
  });

  it('refuses what it cannot run, saying why', () => {
    const err = (argv: string[]) => {
      const r = parseBotArgs(argv);
      return r.ok ? null : r.error;
    };
    expect(err(['--count', '3'])).toMatch(/--lab/);
    expect(err(['--lab', 'x'])).toMatch(/--count/);
    expect(err(['--lab', 'x', '--count', '5', '--ids', '1-2'])).toMatch(/only 2/);
    expect(err(['--lab', 'x', '--count', '2', '--algorithm', 'paxos'])).toMatch(/--algorithm/);
    expect(err(['--lab', 'x', '--count', '2', '--transport', 'tcp'])).toMatch(/--transport/);
    expect(err(['--lab', 'x', '--count', '2', '--bogus'])).toMatch(/bogus/);
  });
});

describe('npm run bots', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRelay();
  });
  afterAll(async () => {
    await h.close();
  });

  it('joins the bots, shows the coordinator they agree on, and leaves the lab at the end', async () => {
    await h.api('POST', '/api/labs', {
      name: 'cli',
      size: 5,
      timing: { transmission: 30, processing: 5, heartbeatInterval: 250, heartbeatTimeout: 1500 },
      fabric: { link: { delay: 2 } },
    });
    const script = fileURLToPath(new URL('../../scripts/bots.ts', import.meta.url));
    const args = [
      '--import',
      'tsx',
      script,
      '--url',
      h.url,
      '--lab',
      'cli',
      '--ids',
      '1-4',
      '--transport',
      'ws',
      '--duration',
      '2',
      '--interval',
      '0.5',
    ];
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, args, { timeout: 15_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out).toContain('joined 4 (ids 1-4)');
    expect(out).toMatch(/joined 4\/4 \| elections \d+ \| coordinator 4 \(4\/4 agree\)/);
    expect(out).toMatch(/coordinator at the end: 4 \(4 of 4 up agree, settled\)/);
    // It left rather than dropping: a dropped id stays reserved for its resume token, a left one is free now.
    const next = new BotFleet({
      lab: 'cli',
      channel: () => nodeChannel(h.url, 'ws'),
      count: 4,
      ids: [1, 2, 3, 4],
    });
    expect(await next.start()).toEqual({ joined: [1, 2, 3, 4], refused: [] });
    next.stop();
  });
});
