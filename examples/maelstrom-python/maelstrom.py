"""A Maelstrom node in Python 3, standard library only: Jepsen Maelstrom's node protocol.

One JSON message a line on stdin and stdout, `{"src", "dest", "body": {"type", "msg_id"?,
"in_reply_to"?, ...}}`; the first message is `init` (`node_id`, `node_ids`), answered with
`init_ok`; logs go to stderr. Besides Maelstrom's fields, Election Lab's `init` carries `lab`
(the lab's algorithm, timing bounds and detector), which `node.lab` keeps (None elsewhere).

    node = Node()
    node.on("ELECTION", lambda msg: ...)      # msg: the whole line as a dict
    node.send("n3", {"type": "OK"})           # adds a msg_id
    node.set_timer("beat", 500, callback)     # named one-shot timers; re-arming replaces
    node.run()                                # until stdin ends

Timers are the node's own, in real time (time.monotonic); one `select` loop serves stdin and them.
"""
import heapq
import itertools
import json
import os
import select
import sys
import time


class Node:
    def __init__(self):
        self.node_id = None
        self.node_ids = []
        self.lab = None
        self.handlers = {}
        self.on_init = None
        self.next_msg_id = itertools.count(1)
        self.timers = []  # heap of (due, seq, name)
        self.live = {}  # name -> (seq, callback)
        self.seq = itertools.count()

    # --- messages --------------------------------------------------------------------------------

    def on(self, kind, handler):
        self.handlers[kind] = handler

    def send(self, dest, body):
        body = dict(body, msg_id=next(self.next_msg_id))
        line = json.dumps({"src": self.node_id, "dest": dest, "body": body}, separators=(",", ":"))
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def reply(self, request, body):
        self.send(request["src"], dict(body, in_reply_to=request["body"].get("msg_id")))

    def log(self, *words):
        print(*words, file=sys.stderr, flush=True)

    def _handle(self, line):
        try:
            msg = json.loads(line)
            body = msg["body"]
            kind = body["type"]
        except (ValueError, KeyError, TypeError):
            self.log("not a message:", line[:200])
            return
        if kind == "init":
            self.node_id, self.node_ids = body["node_id"], list(body["node_ids"])
            self.lab = body.get("lab")
            self.reply(msg, {"type": "init_ok"})
            if self.on_init:
                self.on_init(msg)
            return
        handler = self.handlers.get(kind)
        if handler is None:
            if body.get("msg_id") is not None:  # Maelstrom's error 10: not supported
                self.reply(msg, {"type": "error", "code": 10, "text": "not supported: " + str(kind)[:40]})
            return
        handler(msg)

    # --- timers -------------------------------------------------------------------------------------

    def set_timer(self, name, after_ms, callback):
        n = next(self.seq)
        self.live[name] = (n, callback)
        heapq.heappush(self.timers, (time.monotonic() + after_ms / 1000.0, n, name))

    def cancel_timer(self, name):
        self.live.pop(name, None)

    def _next_wait(self):
        while self.timers and self.live.get(self.timers[0][2], (None,))[0] != self.timers[0][1]:
            heapq.heappop(self.timers)
        return max(0.0, self.timers[0][0] - time.monotonic()) if self.timers else None

    def _fire_due(self):
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, n, name = heapq.heappop(self.timers)
            entry = self.live.get(name)
            if entry and entry[0] == n:
                del self.live[name]
                entry[1]()

    # --- the loop ---------------------------------------------------------------------------------------

    def run(self):
        fd, pending = sys.stdin.fileno(), b""
        while True:
            ready, _, _ = select.select([fd], [], [], self._next_wait())
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return  # stdin ended: Maelstrom (or the lab's host) is done with us
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        self._handle(line.decode("utf-8", "replace"))
            self._fire_due()
