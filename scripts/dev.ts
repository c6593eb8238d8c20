// `npm run dev`: the relay under `tsx watch` (restarts when anything it imports changes) on
// RELAY_PORT (3000), and Vite's dev server with hot reload on PORT (5173), which proxies /api,
// /socket.io and /ws to the relay (client/vite.config.ts). Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const relayPort = Number(process.env['RELAY_PORT'] ?? 3000);
const webPort = Number(process.env['PORT'] ?? 5173);

const tsx = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));
const relay = spawn(process.execPath, [tsx, 'watch', '--clear-screen=false', 'server/main.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: String(relayPort),
    HOST: process.env['HOST'] ?? '127.0.0.1',
    RELAY_URL: undefined,
  },
});

process.env['RELAY_URL'] ??= `http://127.0.0.1:${relayPort}`;
const vite = await createServer({
  configFile: fileURLToPath(new URL('../client/vite.config.ts', import.meta.url)),
  server: { port: webPort, host: process.env['HOST'] ?? '127.0.0.1' },
});
await vite.listen();
console.log(
  `\nDev dashboard with hot reload: http://localhost:${webPort}/  (relay on :${relayPort}; the instructor URL the relay prints works here with port ${webPort})\n`,
);

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  relay.kill('SIGTERM');
  await vite.close();
  process.exit(code);
}
relay.on('exit', (code) => {
  if (!stopping) {
    console.error(`relay exited (${code ?? 'signal'}); stopping the dev server`);
    void stop(code ?? 1);
  }
});
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
