import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@shared': fileURLToPath(new URL('./shared', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests bind real sockets; keep parallelism modest on small CI machines.
    maxWorkers: 2,
    // A browser test polls the page for what the relay did; vitest's default of 1 s is too short
    // on a loaded 2-core CI machine (a click, an API call and a redraw took longer and failed
    // e2e-classroom). A poll that can never succeed still fails, only later.
    expect: { poll: { timeout: 10_000 } },
  },
});
