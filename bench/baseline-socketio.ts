// Baseline 2: the least a forwarder on socket.io can do: the relay's frames in one `frame`
// event, a map from id to socket, nothing else (no labs, no fabric, no validation, no trace).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import type { BaselineServer } from './baseline-ws.ts';

export async function startBaselineSocketIo(): Promise<BaselineServer> {
  const http = createServer((_req, res) => res.writeHead(404).end());
  const ioServer = new Server(http, { transports: ['websocket'], serveClient: false });
  const byId = new Map<number, Socket>();
  let nextMsg = 1;
  ioServer.on('connection', (socket) => {
    let self = -1;
    socket.on('frame', (f: { type?: string; id?: number; to?: number; message?: unknown }) => {
      if (typeof f !== 'object' || f === null) return;
      if (f.type === 'send' && self >= 0) {
        byId
          .get(f.to as number)
          ?.emit('frame', { type: 'deliver', from: self, msg: nextMsg++, message: f.message });
      } else if (f.type === 'join' && typeof f.id === 'number') {
        self = f.id;
        byId.set(self, socket);
        socket.emit('frame', { type: 'joined', id: self });
      }
    });
    socket.on('disconnect', () => {
      if (byId.get(self) === socket) byId.delete(self);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: async () => {
      await ioServer.close();
    },
  };
}
