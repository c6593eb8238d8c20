import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The tests live in rooms, one vitest project each (CONTRIBUTING.md, "Tests"):
//   unit     pure code, a manual clock or the simulator: no socket, no child process, no worker;
//   grader   the grader's test set: every correct and broken module graded (pure too, but slow);
//   relay    a real relay on port 0, a child process, a worker thread, Python;
//   cluster  real redis-server and several relays;
//   e2e      Chromium against a relay serving the built app.
// `npx vitest run --project unit` runs one room. Only e2e builds the client first: its global
// setup (test/global-setup.ts) rebuilds client/dist when client/ or shared/ is newer, so editing
// shared/ never makes a unit run wait for a Vite build.
// The projects are written inline with `extends: true` (vitest 4 does not inherit the root's
// options otherwise): the alias and the test options below hold in every room. `include` stays
// out of the root, since an inherited array would be concatenated with each project's own.
const room = (name: string, extra: { globalSetup?: string[] } = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], ...extra },
});

export default defineConfig({
  resolve: { alias: { '@shared': fileURLToPath(new URL('./shared', import.meta.url)) } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests bind real sockets; keep parallelism modest on small CI machines.
    maxWorkers: 2,
    // A browser test polls the page for what the relay did; vitest's default of 1 s is too short
    // on a loaded 2-core CI machine (a click, an API call and a redraw took longer and failed
    // e2e-classroom). A poll that can never succeed still fails, only later.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      room('unit'),
      room('grader'),
      room('relay'),
      room('cluster'),
      room('e2e', { globalSetup: ['test/global-setup.ts'] }),
    ],
  },
});
