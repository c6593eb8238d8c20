// Token-less student load for tests (issue 23): `connections` WebSockets join a lab as processes
// and send messages of `bytes` each to one another at up to `perSecond` each, for `ms`, from a
// child process (so the test's own event loop stays free to watch). Talks to 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

const FLOODER = `
const WebSocket = require('ws');
const [url, lab, n, bytes, perSecond, ms] = JSON.parse(process.argv[1]);
const pad = 'x'.repeat(bytes);
let sent = 0;
const end = Date.now() + ms;
const socks = [];
for (let i = 0; i < n; i++) {
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  ws.on('open', () => ws.send(JSON.stringify({ type: 'join', lab, id: i })));
  socks.push(ws);
}
const tick = 20;
const perTick = Math.max(1, Math.round((perSecond * tick) / 1000));
const timer = setInterval(() => {
  if (Date.now() > end) {
    clearInterval(timer);
    for (const ws of socks) ws.terminate();
    console.log(JSON.stringify({ sent }));
    process.exit(0);
  }
  socks.forEach((ws, i) => {
    if (ws.readyState !== 1 || ws.bufferedAmount > 4e6) return;
    for (let k = 0; k < perTick; k++) {
      ws.send('{"type":"send","to":' + ((i + 1) % n) + ',"message":{"type":"FLOOD","pad":"' + pad + '"}}');
      sent++;
    }
  });
}, tick);
`;

export function flood(opts: {
  url: string;
  lab: string;
  connections: number;
  bytes: number;
  perSecond: number;
  ms: number;
}): Promise<{ sent: number }> {
  const args = [
    opts.url.replace('http', 'ws') + '/ws',
    opts.lab,
    opts.connections,
    opts.bytes,
    opts.perSecond,
    opts.ms,
  ];
  const child = spawn(process.execPath, ['-e', FLOODER, JSON.stringify(args)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), opts.ms + 20_000);
  return new Promise((resolve) =>
    child.once('exit', () => {
      clearTimeout(killer);
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as { sent: number });
      } catch {
        resolve({ sent: 0 });
      }
    }),
  );
}
