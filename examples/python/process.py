"""An Election Lab process in Python 3, standard library only, written from docs/PROTOCOL.md.

    python3 examples/python/process.py --relay http://127.0.0.1:3000 --lab demo [--id 3] [--name py]

It joins the lab over the raw WebSocket endpoint, runs Bully (bully.py) with the timers and the
failure detector the lab's `config` names, reports its state, obeys crashed / recovered /
restart / elect, follows `moved` to the relay that owns the lab, and after a dropped connection
joins again with its resume token. One line per event on stdout.
"""
import argparse
import heapq
import itertools
import json
import select
import sys
import time

from bully import Bully
from ws_client import WebSocket, WebSocketClosed

RECONNECT_S = 0.5  # wait before joining again after a dropped connection
GIVE_UP_S = 60  # a relay unreachable this long: stop (the id was freed 15 s after the drop)
MAX_HOPS = 8  # `moved` answers followed in a row without a `joined`; past it, give up


def ws_url(origin):
    """`moved` names the owner's origin (http://host:port); its raw endpoint is ws://host:port/ws."""
    origin = origin.rstrip("/")
    if origin.startswith("https://"):
        raise SystemExit("wss:// is not supported by this example")
    if origin.startswith("http://"):
        origin = "ws://" + origin[len("http://") :]
    return origin if origin.endswith("/ws") else origin + "/ws"


class Timers:
    """Named one-shot timers on a heap; re-arming or cancelling a name makes its old entry stale."""

    def __init__(self):
        self.heap, self.live, self.count = [], {}, itertools.count()

    def set(self, name, after_ms):
        n = next(self.count)
        self.live[name] = n
        heapq.heappush(self.heap, (time.monotonic() + after_ms / 1000.0, n, name))

    def cancel(self, name):
        self.live.pop(name, None)

    def clear(self):
        self.heap, self.live = [], {}

    def wait(self):
        """Seconds until the next live timer (None: no timer)."""
        while self.heap and self.live.get(self.heap[0][2]) != self.heap[0][1]:
            heapq.heappop(self.heap)
        return max(0.0, self.heap[0][0] - time.monotonic()) if self.heap else None

    def due(self):
        now, out = time.monotonic(), []
        while self.heap and self.heap[0][0] <= now:
            _, n, name = heapq.heappop(self.heap)
            if self.live.get(name) == n:
                del self.live[name]
                out.append(name)
        return out


class Process:
    def __init__(self, args):
        self.args = args
        self.url = ws_url(args.relay)
        self.id = args.id
        self.resume = None
        self.config = None
        self.algo = None  # None: not running (not joined yet, or crashed)
        self.last_report = None
        self.timers = Timers()
        self.ws = None
        self.hops = 0
        self.done = False

    def log(self, *parts):
        print(*parts, flush=True)

    # --- the connection -----------------------------------------------------------------------

    def connect(self):
        self.ws = WebSocket(self.url)
        join = {"type": "join", "lab": self.args.lab, "kind": "external", "ref": "join"}
        if self.id is not None:
            join["id"] = self.id
        if self.resume:
            join["resume"] = self.resume  # an unknown or expired token is ignored: a fresh join
        if self.args.name:
            join["name"] = self.args.name
        self.send(join)

    def send(self, frame):
        try:
            self.ws.send_text(json.dumps(frame, separators=(",", ":")))
        except WebSocketClosed:
            pass  # the read loop notices and reconnects; the frame is lost, as on a lossy link

    def run(self):
        self.connect()
        while not self.done:
            wait = self.timers.wait()
            try:
                # Closed by the peer after messages it sent in the same read: receive reports it.
                ready = self.ws.closed or select.select([self.ws], [], [], 1.0 if wait is None else min(wait, 1.0))[0]
                texts = self.ws.receive() if ready else []
            except WebSocketClosed as err:
                self.log("disconnected:", err)
                self.reconnect()
                continue
            for text in texts:
                if text is not None:
                    self.on_frame(json.loads(text))
            for name in self.timers.due():
                self.apply(self.algo.on_timer(name) if self.algo else [])

    def reconnect(self):
        # The relay keeps the id for the resume token for 15 s; the algorithm carries on meanwhile
        # (its sends are lost, as on a cut link), and the rejoin decides whether to restart.
        deadline = time.monotonic() + GIVE_UP_S
        while time.monotonic() < deadline:
            time.sleep(RECONNECT_S)
            try:
                return self.connect()
            except (OSError, WebSocketClosed) as err:
                self.log("reconnect failed:", err)
        raise SystemExit("the relay stayed unreachable for %d s" % GIVE_UP_S)

    # --- frames from the relay ----------------------------------------------------------------

    def on_frame(self, f):
        kind = f.get("type")
        if kind == "joined":
            self.hops = 0
            changed = f["config"] != self.config
            self.id, self.resume, self.config = f["id"], f["resume"], f["config"]
            self.log("joined", self.args.lab, "as", self.id, "status", f["status"], "protocol", f["protocol"])
            if f["status"] == "crashed":
                self.stop_algorithm()
            elif changed or self.algo is None:
                self.start_algorithm()
            else:
                self.last_report = None  # the relay cleared our report on disconnect: send it again
                self.send_report()
        elif kind == "deliver":
            if self.algo:
                self.apply(self.algo.on_message(f["from"], f["message"]))
        elif kind == "crashed":
            self.log("crashed")
            self.stop_algorithm()
        elif kind in ("recovered", "restart"):
            self.config = f["config"]
            self.log(kind)
            self.start_algorithm()
        elif kind == "elect":
            if self.algo:
                self.apply(self.algo.elect())
        elif kind == "moved":
            self.hops += 1
            if self.hops > MAX_HOPS:
                raise SystemExit("too many moved answers in a row")
            self.log("moved to", f["url"])
            self.ws.close()
            self.url = ws_url(f["url"])
            try:
                self.connect()  # the same join again, with the same id and resume token
            except (OSError, WebSocketClosed) as err:
                self.log("owner unreachable:", err)  # a dead owner whose lease runs on: try again
                self.reconnect()
        elif kind == "left":
            self.log("left")
            self.stop_algorithm()
            self.done = True
        elif kind == "error":
            self.log("error", f.get("code"), f.get("message"))
            if f.get("ref") == "join":
                raise SystemExit("join refused: %s" % f.get("code"))

    # --- the algorithm ------------------------------------------------------------------------

    def start_algorithm(self):
        if self.config["algorithm"] != "bully":
            self.send({"type": "leave"})
            raise SystemExit("this example speaks Bully only; the lab runs %s" % self.config["algorithm"])
        self.timers.clear()
        self.algo = Bully(self.config, self.id)
        self.last_report = None
        self.apply(self.algo.start())

    def stop_algorithm(self):
        self.timers.clear()  # no state and no timers survive a crash
        self.algo = None
        self.last_report = None

    def apply(self, effects):
        for fx in effects:
            if fx[0] == "send":
                self.send({"type": "send", "to": fx[1], "message": fx[2]})
            elif fx[0] == "set":
                self.timers.set(fx[1], fx[2])
            elif fx[0] == "cancel":
                self.timers.cancel(fx[1])
        self.send_report()

    def send_report(self):
        if not self.algo:
            return
        report = self.algo.report()
        if report != self.last_report:
            if self.last_report is None or report["coordinator"] != self.last_report["coordinator"]:
                self.log("believes", report["coordinator"], "role", report["role"])
            self.last_report = report
            self.send({"type": "report", "report": report})


def main(argv=None):
    p = argparse.ArgumentParser(description="A Bully process for an Election Lab relay (raw WebSocket).")
    p.add_argument("--relay", default="http://127.0.0.1:3000", help="the relay's origin, or a ws://host:port/ws URL")
    p.add_argument("--lab", required=True, help="the lab's name")
    p.add_argument("--id", type=int, help="the id to claim (default: the lowest free one)")
    p.add_argument("--name", help="a display name (at most 40 characters)")
    args = p.parse_args(argv)
    proc = Process(args)
    try:
        proc.run()
    except KeyboardInterrupt:
        proc.send({"type": "leave"})
    finally:
        if proc.ws:
            proc.ws.close()


if __name__ == "__main__":
    sys.exit(main())
