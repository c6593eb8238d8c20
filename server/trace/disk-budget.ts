// How much of the disk the relay's traces may take, all labs together (archives included). Past
// it, every lab's trace goes lean (trace-store.ts): message events are no longer written, the
// events the checker and replay's beliefs need still are. Measured once at start, then counted
// as traces grow.
import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';

export class DiskBudget {
  constructor(
    readonly limit: number,
    public used: number,
  ) {}

  /** `limit` absent: half of the free space at start plus what is used already, at most 16 GiB. */
  static async measure(dir: string, limit?: number): Promise<DiskBudget> {
    const used = await sizeOf(dir);
    if (limit !== undefined) return new DiskBudget(limit, used);
    let free = 16 * 2 ** 30;
    try {
      const s = await statfs(dir);
      free = s.bavail * s.bsize;
    } catch {
      // no statfs here: keep the cap
    }
    return new DiskBudget(Math.min(16 * 2 ** 30, used + Math.floor(free / 2)), used);
  }

  add(bytes: number): void {
    this.used += bytes;
  }

  get over(): boolean {
    return this.used > this.limit;
  }
}

async function sizeOf(dir: string, depth = 0): Promise<number> {
  let total = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const s = await stat(join(dir, name));
      if (s.isDirectory()) total += depth < 2 ? await sizeOf(join(dir, name), depth + 1) : 0;
      else total += s.size;
    } catch {
      // vanished while counting
    }
  }
  return total;
}
