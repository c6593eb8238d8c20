"""A Bully node for Maelstrom's protocol, in Python 3 with the standard library only.

    npm run maelstrom -- --lab demo --id 3 -- python3 examples/maelstrom-python/bully_node.py

It runs the Bully state machine of examples/python/bully.py (the rules docs/PROTOCOL.md gives for
interoperating with the lab's bots: ELECTION / OK / COORDINATOR with terms, the heartbeat or poll
failure detector, the OK timeout UB = 2T + M) on its own real-time timers (maelstrom.py), and
writes what it believes to the pseudo-node "lab" after every step that changed it. Node "n<k>" is
process k. The timing bounds and the detector come from init's `lab` field when there is one.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from bully import Bully  # noqa: E402  (examples/python/bully.py)
from maelstrom import Node  # noqa: E402

DEFAULT_TIMING = {"transmission": 100, "processing": 10, "heartbeatInterval": 500, "heartbeatTimeout": 1500}
MESSAGE_TYPES = ("ELECTION", "OK", "COORDINATOR", "HEARTBEAT", "PING", "PONG")


def number(name):
    """"n7" -> 7 (None for anything else: clients, the lab)."""
    return int(name[1:]) if isinstance(name, str) and name[:1] == "n" and name[1:].isdigit() else None


class BullyNode:
    def __init__(self, node):
        self.node = node
        self.algo = None
        self.last_report = None
        node.on_init = self.start
        for kind in MESSAGE_TYPES:
            node.on(kind, self.on_message)
        node.on("elect", self.on_elect)

    def start(self, _init):
        lab = self.node.lab or {}
        config = {
            "timing": dict(DEFAULT_TIMING, **(lab.get("timing") or {})),
            "detector": lab.get("detector") or "heartbeat",
            "ids": sorted(number(n) for n in self.node.node_ids),
            "options": lab.get("options") or {},
        }
        me = number(self.node.node_id)
        self.node.log("starting as", me, "of", config["ids"], "detector", config["detector"], "pid", os.getpid())
        self.algo = Bully(config, me)
        self.apply(self.algo.start())

    def on_message(self, msg):
        sender = number(msg["src"])
        if self.algo is None or sender is None:
            return
        self.apply(self.algo.on_message(sender, msg["body"]))

    def on_elect(self, msg):
        if self.algo is not None and msg["src"] == "lab":
            self.apply(self.algo.elect())

    def apply(self, effects):
        for effect in effects:
            if effect[0] == "send":
                self.node.send("n%d" % effect[1], effect[2])
            elif effect[0] == "set":
                name = effect[1]
                self.node.set_timer(name, effect[2], lambda name=name: self.apply(self.algo.on_timer(name)))
            else:
                self.node.cancel_timer(effect[1])
        report = self.algo.report()
        if report != self.last_report:
            if self.last_report is None or report["coordinator"] != self.last_report["coordinator"]:
                self.node.log("believes", report["coordinator"], "role", report["role"])
            self.last_report = report
            self.node.send("lab", dict(report, type="report"))


if __name__ == "__main__":
    BullyNode(Node()).node.run()
