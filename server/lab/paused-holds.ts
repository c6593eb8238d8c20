// Messages that came due for a paused process (the instructor's per-process pause, SIGSTOP in
// Maelstrom's terms): each paused id keeps its own queue, in the order its messages came due,
// and gets them back in that order at resume. The queues count towards the lab's caps on held
// messages (`Lab.heldFull` adds `size` and `bytes` to the timer queue's), so one bound covers both.
import type { ProcessId } from '@shared/algorithms/algorithm.ts';

export class PausedHolds<T> {
  private readonly queues = new Map<ProcessId, T[]>();
  /** Messages held over all paused ids. */
  size = 0;
  /** Sum of `sizeOf` over them. */
  bytes = 0;

  constructor(private readonly sizeOf: (entry: T) => number) {}

  hold(id: ProcessId, entry: T): void {
    let q = this.queues.get(id);
    if (!q) this.queues.set(id, (q = []));
    q.push(entry);
    this.size++;
    this.bytes += this.sizeOf(entry);
  }

  /** How many messages `id` has waiting. */
  count(id: ProcessId): number {
    return this.queues.get(id)?.length ?? 0;
  }

  /** Takes `id`'s queue, oldest first (resume, crash). */
  release(id: ProcessId): T[] {
    const q = this.queues.get(id) ?? [];
    this.queues.delete(id);
    this.size -= q.length;
    for (const e of q) this.bytes -= this.sizeOf(e);
    return q;
  }

  /** Takes every queue (reset, reconfigure). */
  drain(): T[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.size = 0;
    this.bytes = 0;
    return all;
  }
}
