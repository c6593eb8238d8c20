// A lab's two number streams: trace sequence numbers and message ids. An observer may have seen
// any number handed out, so none is ever handed out twice (docs/RELIABILITY.md, "Numbers never go
// back"): with a fence record (lab-fence.ts) each block is reserved on disk before its first
// number is used, and a refused block (a newer owner's epoch) makes the lab inert.
import type { LabFence } from './lab-fence.ts';

export class LabNumbers {
  /** The next trace sequence number and message id. */
  seq: number;
  nextMsg: number;
  /**
   * A newer owner's epoch refused the next block: numbers past this relay's last block may be
   * the new owner's, so the lab records, sends and delivers nothing more (the cluster lets it go).
   */
  inert = false;
  /** Numbers from these on are not reserved on disk yet (Infinity without a fence record). */
  private seqLimit = Infinity;
  private msgLimit = Infinity;

  constructor(
    private readonly fence: LabFence | undefined,
    start: { nextSeq: number; nextMsg: number } | undefined,
  ) {
    this.seq = start?.nextSeq ?? 0;
    this.nextMsg = start?.nextMsg ?? 1;
    if (fence) this.reserve();
  }

  // Numbers are taken here only: a block is reserved on disk before its first number is used.
  takeSeq(): number {
    if (this.seq >= this.seqLimit) this.reserve();
    return this.seq++;
  }

  takeMsg(): number {
    if (this.nextMsg >= this.msgLimit) this.reserve();
    return this.nextMsg++;
  }

  /** A fresh timeline (lab reset): both streams start over; `flush` gives the store's chain, which holds the rotation queued just before (the old marks stay until it lands). */
  restart(flush: () => Promise<unknown>): void {
    this.seq = 0;
    this.nextMsg = 1;
    if (!this.fence) return;
    this.fence.restart(flush());
    this.seqLimit = this.fence.seqLimit;
    this.msgLimit = this.fence.msgLimit;
    if (this.fence.fenced) this.inert = true;
  }

  /** Everything is written: the record names the exact next numbers (no gap after a clean restart). */
  close(): void {
    this.fence?.settle(this.seq, this.nextMsg);
    this.fence?.close();
  }

  private reserve(): void {
    const fence = this.fence!;
    if (!fence.reserve(this.seq, this.nextMsg)) this.inert = true;
    this.seqLimit = fence.seqLimit;
    this.msgLimit = fence.msgLimit;
  }
}
