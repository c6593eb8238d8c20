// A relay lab on a manual clock for unit tests, with connections that keep the frames they are
// sent: no sockets, time moves only when the test says.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ServerFrame } from '@shared/protocol/frames.ts';
import { newConnId, type Conn } from '../../server/lab/conn.ts';
import { Lab } from '../../server/lab/lab.ts';
import type { ObserverHub } from '../../server/lab/observers.ts';
import { newLabConfig } from '../../server/lab/lab-settings.ts';
import { TraceStore } from '../../server/trace/trace-store.ts';
import { ManualClock } from './manual-clock.ts';

/** A connection that records every frame; `full` makes it report itself backed up. */
export class FakeConn implements Conn {
  readonly id = newConnId();
  readonly transport = 'server' as const;
  frames: ServerFrame[] = [];
  full = false;
  /** Bytes it says are queued for it (undefined: it cannot tell, as an in-process bot). */
  backlog: number | undefined;
  /** Set by `close`: the reason given, or '' without one. */
  closedWith: string | null = null;
  sendText(json: string): void {
    this.frames.push(JSON.parse(json) as ServerFrame);
  }
  overloaded(): boolean {
    return this.full;
  }
  backlogBytes(): number {
    return this.backlog ?? Infinity;
  }
  close(reason?: string): void {
    this.closedWith = reason ?? '';
  }
}

/** A Bully lab of `size` ids (no failure detector) whose trace goes to `<dir>/<name>.jsonl`. */
export function manualLab(
  dir: string,
  name: string,
  opts: { size?: number; delay?: number; resumeGraceMs?: number; clock?: ManualClock } = {},
): { lab: Lab; clock: ManualClock; path: string } {
  const clock = opts.clock ?? new ManualClock();
  const config = newLabConfig(
    { name, size: opts.size ?? 3, detector: 'none', fabric: { link: { delay: opts.delay ?? 10 } } },
    () => 1,
  );
  if (!config.ok) throw new Error('config');
  const path = join(dir, `${name}.jsonl`);
  const lab = new Lab(config.value, {
    clock,
    store: new TraceStore(path, 10),
    vectorLimit: 64,
    resumeGraceMs: opts.resumeGraceMs ?? 100,
    onError: (e) => {
      throw e;
    },
  });
  return { lab, clock, path };
}

/** A temporary folder for the describe block that calls this (made before it, removed after). */
export function tempDir(prefix: string): { readonly path: string } {
  const dir = { path: '' };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}

/** Offers an observer hub one encoded trace event, as the lab does (`admit`, then `push`). */
export function offer(hub: ObserverHub, line: string, isMessage: boolean): void {
  if (hub.admit(isMessage)) hub.push(line);
}
