// The instructor's hand on a lab, persisted so a restart (or a takeover by another relay of a
// cluster) brings it back: which ids are crashed, the partition, whether the lab is paused. The
// fabric's settings are part of the lab's configuration file already. Written atomically (a
// temp file, then rename) after every change, in order; read once when the lab opens.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ProcessIdSchema } from '@shared/protocol/lab-config.ts';
import type { Lab } from './lab.ts';

export const LabStateSchema = z
  .object({
    crashed: z.array(ProcessIdSchema).max(5000),
    partition: z.array(z.array(ProcessIdSchema).max(5000)).max(5000).nullable(),
    paused: z.boolean(),
  })
  .strict();
export type LabState = z.infer<typeof LabStateSchema>;

export const statePath = (dir: string, lab: string): string => join(dir, `${lab}.state.json`);

export function stateOf(lab: Lab): LabState {
  return {
    crashed: lab.processes
      .list()
      .filter((e) => e.crashed)
      .map((e) => e.id),
    partition: lab.fabric.partition,
    paused: lab.scheduler.paused,
  };
}

/** Puts the state back on a freshly opened lab (ids no longer in the lab are ignored). */
export function applyState(lab: Lab, s: LabState): void {
  for (const id of s.crashed) {
    const e = lab.processes.get(id);
    if (e) lab.setProcessState(e, { crashed: true });
  }
  const ids = new Set(lab.config.ids);
  if (s.partition && s.partition.every((g) => g.every((id) => ids.has(id))))
    lab.fabric.setPartition(s.partition);
  if (s.paused) lab.scheduler.pause();
}

/** The saved state, or null (none yet, or unreadable: reported through `onError`). */
export async function readState(
  path: string,
  onError: (err: unknown) => void,
): Promise<LabState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = LabStateSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    onError(new Error(`${path}: not a lab state file`));
  } catch (err) {
    onError(err);
  }
  return null;
}

/** Saves in order; the last save wins even when writes overlap. */
export class StateWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  save(state: LabState): Promise<void> {
    const text = JSON.stringify(state);
    this.chain = this.chain.then(async () => {
      try {
        await writeFile(`${this.path}.tmp`, text);
        await rename(`${this.path}.tmp`, this.path);
      } catch (err) {
        this.onError(err);
      }
    });
    return this.chain;
  }

  flushed(): Promise<void> {
    return this.chain;
  }
}
