"""The Bully algorithm as docs/PROTOCOL.md states the bots' rules, as a pure state machine.

`Bully(config, me)` holds the state; `start()`, `on_message(sender, message)`, `on_timer(name)`
and `elect()` return effects, which the host (process.py) carries out:
    ("send", to, message)   send `message` (a dict) to id `to` through the relay
    ("set", name, ms)       arm timer `name` to fire after `ms` (re-arming replaces it)
    ("cancel", name)        disarm timer `name`
No clock, no socket: the same inputs give the same effects.
"""

OK_TIMER, COORDINATOR_TIMER = "ok", "coordinator"
BEAT, SILENCE, POLL, PONG = "fd:beat", "fd:silence", "fd:poll", "fd:pong"
DETECTOR_TIMERS = (BEAT, SILENCE, POLL, PONG)
BACKOFF_CAP = 8  # the election timeouts grow at most to 8 times the derived ones


def positive(value):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return value if ok else None


class Bully:
    def __init__(self, config, me):
        t = config["timing"]
        self.me = me
        self.timing = t
        self.mode = config["detector"]  # "heartbeat", "poll" or "none"
        ids = config["ids"]
        self.higher = [i for i in ids if i > me]
        self.lower = [i for i in ids if i < me]
        self.peers = [i for i in ids if i != me]
        ub = 2 * t["transmission"] + t["processing"]  # UB = 2T + M
        self.ub = ub
        opts = config.get("options") or {}
        self.ok_timeout = positive(opts.get("okTimeout")) or ub
        # Wait for COORDINATOR after an OK: 2 UB + T + M = 5T + 3M.
        self.coordinator_timeout = positive(opts.get("coordinatorTimeout")) or 2 * ub + t["transmission"] + t["processing"]
        self.base_ok_timeout = self.ok_timeout
        self.role = "follower"  # follower, coordinator, electing (awaiting OKs), waiting (awaiting COORDINATOR)
        self.coordinator = None
        self.elections = 0  # how many elections this process held; the current one's number
        self.term = 0  # the highest term seen
        self.held_term = 0  # the term of the last election this process held
        self.coordinator_term = 0  # the term of the COORDINATOR believed
        self.fd = "off"  # the detector: off, lead or follow
        self.fd_leader = None
        self.awaiting_pong = False

    # --- what the host calls ----------------------------------------------------------------

    def start(self):
        fx = []
        self._start_election(fx)
        return fx

    def elect(self):
        fx = []
        self._start_election(fx)
        return fx

    def report(self):
        return {
            "role": self.role,
            "coordinator": self.coordinator,
            "electing": self.holding(),
            "detail": {"elections": self.elections, "term": self.term},
        }

    def holding(self):
        return self.role in ("electing", "waiting")

    def on_timer(self, name):
        fx = []
        if name.startswith("fd:"):
            if self._detector_timer(name, fx) and not self.holding():
                self._start_election(fx)
        elif name == OK_TIMER and self.role == "electing":
            self._become_coordinator(fx)
        elif name == COORDINATOR_TIMER and self.role == "waiting":
            self._start_election(fx)
        return fx

    def on_message(self, sender, m):
        fx = []
        kind = m.get("type")
        if kind in ("HEARTBEAT", "PING", "PONG"):
            seen = self._detector_message(sender, kind, fx)
            if seen is not None:
                self._leader_seen(seen, fx)
            return fx
        term = m.get("term")
        if not isinstance(term, int) or isinstance(term, bool) or term < 0:
            term = None  # a process written from the documents alone sends none
        if kind in ("ELECTION", "OK") and (sender > self.me) != (kind == "OK"):
            return fx  # ELECTION only ever goes up and OK down: ignore a malformed one
        role, coordinator, coordinator_term, elections = self.role, self.coordinator, self.coordinator_term, self.elections
        if term is not None and term > self.term:
            self.term = term  # every process keeps the highest term it has seen
        if kind == "ELECTION":
            fx.append(("send", sender, {"type": "OK", "election": m.get("election", 0), "term": self.term}))
            self._on_election(sender, term, fx)
        elif kind == "OK":
            if m.get("election") == elections and role == "coordinator":
                self._slower()  # an OK after its timeout: the links are slower than declared
            elif role == "electing" and m.get("election") == elections:
                fx += [("cancel", OK_TIMER), ("set", COORDINATOR_TIMER, self.coordinator_timeout)]
                self.role = "waiting"
        elif kind == "COORDINATOR":
            if sender < self.me:
                if not self.holding():
                    self._start_election(fx)  # a lower one declared: bully it
                return fx
            # Within one term the highest declared id wins: a lower one's COORDINATOR of an
            # older or equal term came from a late OK.
            stale = term is not None and coordinator is not None and sender < coordinator and term <= coordinator_term
            if sender > self.me and not stale:
                self._accept(sender, term if term is not None else self.term, fx)
        return fx

    # --- the rules ------------------------------------------------------------------------

    def _start_election(self, fx, term=None):
        if term is None:
            term = self.term + 1  # an election of its own opens a new term
        self.elections += 1
        self.coordinator = None
        self.term = max(self.term, term)
        self.held_term = term
        self._stop_detector(fx)
        fx.append(("cancel", COORDINATOR_TIMER))
        if not self.higher:
            return self._become_coordinator(fx)
        for to in self.higher:
            fx.append(("send", to, {"type": "ELECTION", "election": self.elections, "term": term}))
        fx.append(("set", OK_TIMER, self.ok_timeout))
        self.role = "electing"

    def _become_coordinator(self, fx):
        fx += [("cancel", OK_TIMER), ("cancel", COORDINATOR_TIMER)]
        for to in self.lower:
            fx.append(("send", to, {"type": "COORDINATOR", "term": self.term}))
        self.role, self.coordinator, self.coordinator_term = "coordinator", self.me, self.term
        self._lead(fx)

    def _accept(self, leader, term, fx):
        fx += [("cancel", OK_TIMER), ("cancel", COORDINATOR_TIMER)]
        self.role, self.coordinator, self.coordinator_term = "follower", leader, term
        self._follow(leader, fx)

    def _on_election(self, sender, term, fx):
        if self.holding():
            return
        if self.role == "coordinator":
            fx.append(("send", sender, {"type": "COORDINATOR", "term": self.term}))
            return
        vouched = self.role == "follower" and self.fd == "follow" and self.coordinator is not None \
            and self.fd_leader == self.coordinator and self.coordinator > self.me
        if vouched or (term is not None and term <= self.held_term):
            return
        self._start_election(fx, term)

    def _leader_seen(self, other, fx):
        if self.holding() or other == self.coordinator:
            return
        if self.role == "coordinator" and other < self.me:
            fx.append(("send", other, {"type": "COORDINATOR", "term": self.term}))
        elif self.coordinator is None or other > self.coordinator:
            self._start_election(fx)

    def _slower(self):
        if self.ok_timeout < BACKOFF_CAP * self.base_ok_timeout:
            self.ok_timeout *= 2
            self.coordinator_timeout *= 2

    # --- the failure detector -----------------------------------------------------------------

    def _stop_detector(self, fx):
        if self.mode != "none" and self.fd != "off":
            fx += [("cancel", name) for name in DETECTOR_TIMERS]
        self.fd, self.fd_leader, self.awaiting_pong = "off", None, False

    def _lead(self, fx):
        if self.mode == "none":
            self.fd = "off"
            return
        self.fd, self.fd_leader, self.awaiting_pong = "lead", None, False
        fx += [("cancel", SILENCE), ("cancel", PONG)]
        if self.mode == "heartbeat":
            fx += [("cancel", POLL), ("set", BEAT, self.timing["heartbeatInterval"])]
        else:  # poll: probe the higher ids for a rival leader
            fx += [("cancel", BEAT), ("set", POLL, self.timing["heartbeatInterval"]) if self.higher else ("cancel", POLL)]

    def _follow(self, leader, fx):
        if self.mode == "none":
            self.fd = "off"
            return
        self.fd, self.fd_leader, self.awaiting_pong = "follow", leader, False
        fx += [("cancel", BEAT), ("cancel", PONG)]
        if self.mode == "heartbeat":
            fx += [("cancel", POLL), ("set", SILENCE, self.timing["heartbeatTimeout"])]
        else:
            fx += [("cancel", SILENCE), ("set", POLL, self.timing["heartbeatInterval"])]

    def _detector_timer(self, name, fx):
        """Returns True when the followed leader is suspected."""
        interval = self.timing["heartbeatInterval"]
        if self.fd == "lead" and name == BEAT and self.mode == "heartbeat":
            fx += [("send", to, {"type": "HEARTBEAT"}) for to in self.peers]
            fx.append(("set", BEAT, interval))
        elif self.fd == "lead" and name == POLL and self.mode == "poll":
            fx += [("send", to, {"type": "PING"}) for to in self.higher]
            fx.append(("set", POLL, interval))
        elif self.fd != "follow":
            return False
        elif name == SILENCE and self.mode == "heartbeat":
            self.fd, self.fd_leader = "off", None
            return True
        elif name == POLL and self.mode == "poll":
            if not self.awaiting_pong:  # one PING outstanding at a time
                self.awaiting_pong = True
                fx += [("send", self.fd_leader, {"type": "PING"}), ("set", PONG, self.ub)]
            fx.append(("set", POLL, interval))
        elif name == PONG and self.mode == "poll" and self.awaiting_pong:
            self.fd, self.fd_leader, self.awaiting_pong = "off", None, False
            fx.append(("cancel", POLL))
            return True
        return False

    def _detector_message(self, sender, kind, fx):
        """Returns the id of a rival leader when one shows itself, else None."""
        if kind == "HEARTBEAT":
            if self.fd == "follow" and sender == self.fd_leader:
                fx.append(("set", SILENCE, self.timing["heartbeatTimeout"]))
                return None
            return sender
        if kind == "PING":
            if self.fd == "lead":  # only a leader answers
                fx.append(("send", sender, {"type": "PONG"}))
            return None
        if self.fd == "follow" and sender == self.fd_leader:
            if self.awaiting_pong:
                self.awaiting_pong = False
                fx.append(("cancel", PONG))
            return None
        if self.fd == "lead" and sender in self.higher:
            return sender
        return None
