// Baseline 1: the least a forwarder on `ws` can do. It speaks the same frames as the relay
// (join -> joined, send -> deliver) so the load generator is the same, but has no labs, no
// fabric, no scheduler, no validation beyond JSON.parse and no trace. The benchmark divides the
// relay's figures by this one's, measured in the same run on the same machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface BaselineServer {
  port: number;
  close(): Promise<void>;
}

export async function startBaselineWs(): Promise<BaselineServer> {
  const http = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: '/ws', perMessageDeflate: false });
  const byId = new Map<number, WebSocket>();
  let nextMsg = 1;
  wss.on('connection', (ws) => {
    let self = -1;
    ws.on('message', (data) => {
      let f: { type?: string; id?: number; to?: number; message?: unknown };
      try {
        f = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (f.type === 'send' && self >= 0) {
        const target = byId.get(f.to as number);
        target?.send(
          JSON.stringify({ type: 'deliver', from: self, msg: nextMsg++, message: f.message }),
        );
      } else if (f.type === 'join' && typeof f.id === 'number') {
        self = f.id;
        byId.set(self, ws);
        ws.send(JSON.stringify({ type: 'joined', id: self }));
      }
    });
    ws.on('close', () => {
      if (byId.get(self) === ws) byId.delete(self);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.close(() => resolve());
      }),
  };
}
