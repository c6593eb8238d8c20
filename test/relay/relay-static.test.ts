// The relay serves the built dashboard with a fallback to index.html for client-side routes, an
// explanatory page when there is no build, and `npm start`'s entry point prints its URLs, makes
// the `demo` lab alive (server bots, the demo loop) and writes its files on SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRelay } from '../helpers/relay-harness.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('static dashboard', () => {
  it('serves client/dist and answers client-side routes with index.html, but not /api routes', async () => {
    const dist = await mkdtemp(join(tmpdir(), 'relay-dist-'));
    dirs.push(dist);
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>Election Lab</title>');
    await writeFile(join(dist, 'assets', 'app.js'), 'console.log(1)');
    const h = await startRelay({ clientDir: dist });
    for (const path of ['/', '/lab/demo', '/lab/demo/instructor?token=x']) {
      const r = await fetch(h.url + path);
      expect(r.status, path).toBe(200);
      expect(await r.text()).toContain('<title>Election Lab</title>');
    }
    expect(await (await fetch(`${h.url}/assets/app.js`)).text()).toBe('console.log(1)');
    const api = await fetch(`${h.url}/api/nothing`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { code: string }).code).toBe('NOT_FOUND');
    await h.close();
  });

  it('explains how to build the dashboard when client/dist is missing', async () => {
    const h = await startRelay({ clientDir: join(tmpdir(), 'no-such-dist') });
    const r = await fetch(`${h.url}/`);
    expect(r.status).toBe(200);
    expect(await r.text()).toMatch(/npm run build/);
    await h.close();
  });
});

describe('server/main.ts', () => {
  it('prints the student and instructor URLs, opens the demo lab alive, and writes its files on SIGTERM', async () => {
    const data = await mkdtemp(join(tmpdir(), 'relay-main-'));
    dirs.push(data);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: data,
        ELECTION_LAB_TOKEN: 'main-test-token',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    try {
      const end = Date.now() + 15_000;
      while (!/instructor\?token=/.test(out) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      const instructor = /(http:\/\/localhost:(\d+)\/lab\/demo\/instructor\?token=\S+)/.exec(out);
      expect(instructor, out).not.toBeNull();
      expect(instructor![1]).toContain('token=main-test-token');
      expect(out).toMatch(/http:\/\/127\.0\.0\.1:\d+\/lab\/demo/);
      const base = `http://127.0.0.1:${instructor![2]}`;
      const labs = (await (await fetch(`${base}/api/labs`)).json()) as {
        name: string;
        algorithm: string;
        size: number;
      }[];
      expect(labs).toEqual([
        expect.objectContaining({ name: 'demo', algorithm: 'bully', size: 8 }),
      ]);
      // The demo lab starts alive (issue 28, item 7): eight server bots agree on 7, and the demo loop runs.
      const agreed = Date.now() + 15_000;
      let coordinators: Record<string, number> = {};
      while (coordinators['7'] !== 8 && Date.now() < agreed) {
        coordinators = (
          (await (await fetch(`${base}/api/labs/demo/stats`)).json()) as {
            coordinators: Record<string, number>;
          }
        ).coordinators;
        if (coordinators['7'] !== 8) await new Promise((r) => setTimeout(r, 50));
      }
      expect(coordinators).toEqual({ '7': 8 });
      expect(await (await fetch(`${base}/api/labs/demo/demo`)).json()).toMatchObject({
        running: true,
        everyMs: 30_000,
      });
      expect(out).toMatch(/crashed and recovered every 30 s/);
      const unauth = await fetch(`${base}/api/labs/demo/pause`, {
        method: 'POST',
        headers: { authorization: 'Bearer nope' },
      });
      expect(unauth.status).toBe(401);
      const ok = await fetch(`${base}/api/labs/demo/pause`, {
        method: 'POST',
        headers: { authorization: 'Bearer main-test-token' },
      });
      expect(ok.status).toBe(200);
      expect(await (await fetch(`${base}/api/labs/demo/demo`)).json()).toEqual({ running: false });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(existsSync(join(data, 'demo.lab.json'))).toBe(true);
    expect(existsSync(join(data, 'demo.jsonl'))).toBe(true);
  }, 30_000);
});
