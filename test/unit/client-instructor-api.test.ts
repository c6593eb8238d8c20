// The instructor panel's calls (client/src/composables/use-api.ts). `busy` disables every button
// of the panel while one of her own actions is under way; the held list the page fetches by
// itself twice a second while paused must not: counted in `busy`, it kept Resume disabled most of
// each half second on a loaded machine, and a click that landed then did nothing (CI: the lab
// stayed paused, the dashboard said so, and the next test's ring never agreed).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ref } from 'vue';
import { useInstructorApi } from '../../client/src/composables/use-api.ts';

/** fetch answers only when the test says so. */
function heldFetch(): { answer: (status: number, body: unknown) => void; calls: string[] } {
  const waiting: ((r: Response) => void)[] = [];
  const calls: string[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    calls.push(`${init.method} ${url}`);
    return new Promise<Response>((r) => waiting.push(r));
  });
  return {
    calls,
    answer: (status, body) => waiting.shift()!(new Response(JSON.stringify(body), { status })),
  };
}

afterEach(() => void vi.unstubAllGlobals());

describe("the instructor's calls", () => {
  it('an action of hers keeps the panel busy until it is answered, and an error shows', async () => {
    const net = heldFetch();
    const api = useInstructorApi(ref('t'));
    const done = api.resume('lab');
    expect(api.busy.value).toBe(1);
    net.answer(409, { type: 'error', code: 'NOT_PAUSED', message: 'The lab is not paused' });
    await done;
    expect([api.busy.value, api.lastError.value]).toEqual([
      0,
      'The lab is not paused (NOT_PAUSED)',
    ]);
  });

  it('the held list, read by the page itself, neither disables the panel nor clears the answer to her last action', async () => {
    const net = heldFetch();
    const api = useInstructorApi(ref('t'));
    const failed = api.resume('lab');
    net.answer(409, { type: 'error', code: 'NOT_PAUSED', message: 'The lab is not paused' });
    await failed;
    const read = api.inFlight('lab');
    expect(api.busy.value).toBe(0);
    net.answer(200, { paused: true, total: 0, messages: [] });
    expect(await read).toEqual({ ok: true, data: { paused: true, total: 0, messages: [] } });
    expect([api.busy.value, api.lastError.value]).toEqual([
      0,
      'The lab is not paused (NOT_PAUSED)',
    ]);
    expect(net.calls).toEqual([
      'POST /api/labs/lab/resume',
      'GET /api/labs/lab/inflight?limit=200',
    ]);
  });
});
