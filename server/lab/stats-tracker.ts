// Counters for GET /api/labs/:lab/stats, a consumer of the lab's trace: the lab hands every
// journaled event to `observe` (the trace is the single source; the trace file alone gives the
// same figures). Updated in O(1) per message: totals, messages by type since the current (or
// last) election started, drops by reason, and a directed per-link traffic and drop matrix,
// bounded: the first `maxLinks` directed links to carry traffic get their own counters; later
// ones count in the totals and in `linksOmitted` only (a 1,000-process Bully storm uses ~998,000
// links, and a counter object for each stayed until the lab was reset).
// An election starts when the first process reports `electing` (or the instructor asks one to
// elect) and ends when no live process reports `electing` any more: a crash, a leave and a
// restart (reset, reconfigure, a new time scale) end a process's electing.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';
import type { LabStats } from '@shared/protocol/frames.ts';
import type { TraceEvent } from '@shared/protocol/trace.ts';
import { linkKey } from '@shared/sim/network.ts';

interface LinkCount {
  from: ProcessId;
  to: ProcessId;
  sent: number;
  delivered: number;
  dropped: number;
}

export class StatsTracker {
  private sent = 0;
  private delivered = 0;
  private dropped = 0;
  private duplicated = 0;
  private readonly byType = new Map<string, number>();
  private readonly drops = new Map<string, number>();
  private readonly links = new Map<number, LinkCount>();
  /** Links past the cap: which have been seen, as one bit per (sender, receiver) pair of dense indices. */
  private readonly untracked = new LinkSet();
  /** Processes whose last report says electing. */
  private readonly electing = new Set<ProcessId>();
  private active = false;
  private startedAt: number | null = null;
  private endedAt: number | null = null;
  private electionByType = new Map<string, number>();
  private electionMessages = 0;

  constructor(private readonly maxLinks = 50_000) {}

  /** One journaled trace event. */
  observe(e: TraceEvent): void {
    switch (e.kind) {
      case 'send':
        return this.send(e.from, e.to, e.type);
      case 'deliver':
        return this.deliver(e.from, e.to);
      case 'drop':
        return this.drop(e.from, e.to, e.reason);
      case 'duplicate':
        this.duplicated++;
        return;
      case 'report':
        return this.setElecting(e.node, e.report.electing, e.t);
      case 'crash':
      case 'leave':
        return this.setElecting(e.node, false, e.t);
      case 'elect':
        return this.begin(e.t);
      case 'control':
        if (e.action === 'reset') this.reset();
        else if (e.action === 'reconfigure' || e.restart)
          for (const id of [...this.electing]) this.setElecting(id, false, e.t);
        return;
      default:
        return;
    }
  }

  send(from: ProcessId, to: ProcessId, type: string): void {
    this.sent++;
    this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    if (this.startedAt !== null) {
      this.electionMessages++;
      this.electionByType.set(type, (this.electionByType.get(type) ?? 0) + 1);
    }
    const l = this.link(from, to);
    if (l) l.sent++;
  }

  deliver(from: ProcessId, to: ProcessId): void {
    this.delivered++;
    const l = this.link(from, to);
    if (l) l.delivered++;
  }

  drop(from: ProcessId, to: ProcessId, reason: string): void {
    this.dropped++;
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
    const l = this.link(from, to);
    if (l) l.dropped++;
  }

  private setElecting(id: ProcessId, electing: boolean, t: number): void {
    if (electing === this.electing.has(id)) return;
    if (electing) {
      this.electing.add(id);
      this.begin(t);
    } else {
      this.electing.delete(id);
      if (this.electing.size === 0 && this.active) {
        this.active = false;
        this.endedAt = t;
      }
    }
  }

  /**
   * `linkLimit`: at most this many links, the busiest of those with counters (an all-to-all lab
   * of 1,000 ids has a million). `linksOmitted` counts every link left out, past the cap too.
   */
  snapshot(
    now: number,
    extra: Pick<LabStats, 'coordinators' | 'processes' | 'relay'>,
    linkLimit = Infinity,
  ): LabStats {
    let links = [...this.links.values()];
    const cut = Math.max(0, links.length - linkLimit);
    if (cut > 0) links = links.sort((a, b) => b.sent - a.sent).slice(0, linkLimit);
    const omitted = cut + this.untracked.size;
    return {
      now,
      messages: {
        sent: this.sent,
        delivered: this.delivered,
        dropped: this.dropped,
        duplicated: this.duplicated,
        byType: Object.fromEntries(this.byType),
      },
      drops: Object.fromEntries(this.drops),
      election: {
        active: this.active,
        startedAt: this.startedAt,
        endedAt: this.active ? null : this.endedAt,
        duration:
          !this.active && this.startedAt !== null && this.endedAt !== null
            ? this.endedAt - this.startedAt
            : null,
        byType: Object.fromEntries(this.electionByType),
        messages: this.electionMessages,
      },
      links: links.map((l) => ({ ...l })).sort((a, b) => a.from - b.from || a.to - b.to),
      ...(omitted > 0 ? { linksOmitted: omitted } : {}),
      ...extra,
    };
  }

  reset(): void {
    this.sent = this.delivered = this.dropped = this.duplicated = 0;
    this.byType.clear();
    this.drops.clear();
    this.links.clear();
    this.untracked.clear();
    this.electing.clear();
    this.active = false;
    this.startedAt = this.endedAt = null;
    this.electionByType = new Map();
    this.electionMessages = 0;
  }

  private begin(t: number): void {
    if (this.active) return;
    this.active = true;
    this.startedAt = t;
    this.endedAt = null;
    this.electionByType = new Map();
    this.electionMessages = 0;
  }

  /** The link's counters, or null for a link past the cap (then only noted as seen). */
  private link(from: ProcessId, to: ProcessId): LinkCount | null {
    const key = linkKey(from, to);
    let l = this.links.get(key);
    if (!l) {
      if (this.links.size >= this.maxLinks) {
        this.untracked.add(from, to);
        return null;
      }
      l = { from, to, sent: 0, delivered: 0, dropped: 0 };
      this.links.set(key, l);
    }
    return l;
  }
}

/** A set of directed links in about one bit each: ids get dense indices, each sender a bit row. */
class LinkSet {
  private readonly index = new Map<ProcessId, number>();
  private rows: Uint8Array[] = [];
  size = 0;

  add(from: ProcessId, to: ProcessId): void {
    const f = this.indexOf(from);
    const t = this.indexOf(to);
    let row = this.rows[f];
    if (!row || row.length <= t >> 3) {
      const grown = new Uint8Array(Math.max(16, (t >> 3) + 1, (row?.length ?? 0) * 2));
      if (row) grown.set(row);
      row = this.rows[f] = grown;
    }
    const bit = 1 << (t & 7);
    if (row[t >> 3]! & bit) return;
    row[t >> 3]! |= bit;
    this.size++;
  }

  clear(): void {
    this.index.clear();
    this.rows = [];
    this.size = 0;
  }

  private indexOf(id: ProcessId): number {
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(id, i);
    }
    return i;
  }
}
