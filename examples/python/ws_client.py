"""A minimal WebSocket client (RFC 6455) over the standard library's `socket`.

Enough for the Election Lab relay's raw endpoint (`ws://<host>:<port>/ws`, docs/PROTOCOL.md):
the opening handshake, masked text frames from the client, fragmented messages, ping/pong and
the closing handshake. No extensions (the relay offers none unless asked), no TLS.
"""
import base64
import hashlib
import os
import select
import socket
import struct
from urllib.parse import urlsplit

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
# The relay closes anything over 1 MiB; refuse more than that from it, too (bounded buffers).
MAX_MESSAGE = 1 << 20


class WebSocketClosed(Exception):
    """The connection is gone (closed by either side, or broken)."""


class WebSocket:
    def __init__(self, url, timeout=5.0):
        parts = urlsplit(url)
        if parts.scheme != "ws":
            raise ValueError("only ws:// URLs are supported: " + url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.fragments = None  # (opcode, bytearray) while a fragmented message is arriving
        self.closed = False
        self.peer_closed = None  # the peer's close frame, once its preceding messages are handed out
        self._handshake(parts, timeout)
        self.sock.setblocking(False)

    def _handshake(self, parts, timeout):
        key = base64.b64encode(os.urandom(16)).decode()
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        host = parts.hostname + (":%d" % parts.port if parts.port else "")
        request = (
            "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host, key)
        )
        self.sock.sendall(request.encode())
        head = bytearray()
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk or len(head) > 16384:
                raise WebSocketClosed("handshake failed: no complete HTTP answer")
            head += chunk
        raw, _, rest = bytes(head).partition(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            raise WebSocketClosed("handshake refused: " + lines[0])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != expected:
            raise WebSocketClosed("handshake failed: wrong Sec-WebSocket-Accept")
        self.buf += rest  # frames may follow the answer in the same packet

    def fileno(self):
        return self.sock.fileno()

    def send_text(self, text):
        self._send_frame(OP_TEXT, text.encode("utf-8"))

    def _send_frame(self, opcode, payload):
        if self.closed:
            raise WebSocketClosed("send on a closed connection")
        n = len(payload)
        head = bytearray([0x80 | opcode])  # FIN, no fragmentation on our side
        if n < 126:
            head.append(0x80 | n)  # every client frame is masked (RFC 6455, 5.3)
        elif n < 65536:
            head.append(0x80 | 126)
            head += struct.pack("!H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack("!Q", n)
        mask = os.urandom(4)
        head += mask
        masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        self._write(bytes(head) + masked)

    def _write(self, data):
        view = memoryview(data)
        while view:
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                select.select([], [self.sock], [], 1.0)
                continue
            except OSError as err:
                self._drop()
                raise WebSocketClosed(str(err))
            view = view[sent:]

    def receive(self):
        """Reads what the socket has and returns the complete text messages in it (maybe none)."""
        if self.peer_closed is not None:
            raise WebSocketClosed(self.peer_closed)
        try:
            chunk = self.sock.recv(65536)
        except BlockingIOError:
            return []
        except OSError as err:
            self._drop()
            raise WebSocketClosed(str(err))
        if not chunk:
            self._drop()
            raise WebSocketClosed("connection closed by the peer")
        self.buf += chunk
        if len(self.buf) > MAX_MESSAGE + 16:
            self.close(1009)
            raise WebSocketClosed("message too big")
        return self._parse()

    def _parse(self):
        messages = []
        while True:
            frame = self._next_frame()
            if frame is None:
                return messages
            fin, opcode, payload = frame
            if opcode == OP_PING:
                self._send_frame(OP_PONG, payload)  # the relay pings every 30 s and drops the silent
            elif opcode == OP_PONG:
                pass
            elif opcode == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1000
                self.close(code)
                # Messages that came in the same read before the close are delivered first (a
                # relay may answer `moved` and close at once); the next receive reports the close.
                self.peer_closed = "closed by the peer (%d)" % code
                return messages
            elif opcode in (OP_TEXT, OP_BINARY):
                if self.fragments is not None:
                    self.close(1002)
                    raise WebSocketClosed("a new message began inside a fragmented one")
                if fin:
                    messages.append(self._finish(opcode, payload))
                else:
                    self.fragments = (opcode, bytearray(payload))
            elif opcode == OP_CONT:
                if self.fragments is None:
                    self.close(1002)
                    raise WebSocketClosed("continuation frame without a first fragment")
                first, data = self.fragments
                data += payload
                if len(data) > MAX_MESSAGE:
                    self.close(1009)
                    raise WebSocketClosed("message too big")
                if fin:
                    self.fragments = None
                    messages.append(self._finish(first, bytes(data)))
            else:
                self.close(1002)
                raise WebSocketClosed("unknown opcode %d" % opcode)

    def _finish(self, opcode, payload):
        if opcode == OP_BINARY:
            return None  # the relay sends text only; ignore anything else
        return bytes(payload).decode("utf-8")

    def _next_frame(self):
        b = self.buf
        if len(b) < 2:
            return None
        fin, opcode = bool(b[0] & 0x80), b[0] & 0x0F
        if b[0] & 0x70:
            self.close(1002)
            raise WebSocketClosed("reserved bits set without an extension")
        if b[1] & 0x80:
            self.close(1002)
            raise WebSocketClosed("a server must not mask its frames")
        n, at = b[1] & 0x7F, 2
        if n == 126:
            if len(b) < 4:
                return None
            n, at = struct.unpack("!H", b[2:4])[0], 4
        elif n == 127:
            if len(b) < 10:
                return None
            n, at = struct.unpack("!Q", b[2:10])[0], 10
        if n > MAX_MESSAGE:
            self.close(1009)
            raise WebSocketClosed("frame too big")
        if len(b) < at + n:
            return None
        payload = bytes(b[at : at + n])
        del b[: at + n]
        return fin, opcode, payload

    def close(self, code=1000):
        """The closing handshake from our side (best effort), then the socket."""
        if self.closed:
            return
        try:
            self._send_frame(OP_CLOSE, struct.pack("!H", code))
        except WebSocketClosed:
            pass
        self._drop()

    def _drop(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass
