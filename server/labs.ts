// The relay's labs by name. Each lab's configuration is kept in DATA_DIR/<lab>.lab.json and its
// trace in DATA_DIR/<lab>.jsonl, so after a restart every lab comes back with its trace, its
// sequence numbers and its processes' clocks; processes then rejoin.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import { LabConfigSchema, type CreateLab } from '@shared/protocol/lab-config.ts';
import { Lab, type LabDeps } from './lab.ts';
import { newLabConfig } from './lab-settings.ts';
import { loadTail, TraceStore } from './trace-store.ts';
import { newJoinCode } from '@shared/protocol/join-code.ts';

export interface LabsOptions extends Omit<LabDeps, 'store' | 'tail'> {
  dataDir: string;
  traceFlushMs?: number;
  /** Most labs at once (each holds timers, files and memory). */
  maxLabs?: number;
}

const CONFIG_SUFFIX = '.lab.json';

export class Labs {
  private readonly labs = new Map<string, Lab>();
  private readonly saving = new Map<string, Promise<void>>();
  private readonly creating = new Set<string>();
  /** Join code -> lab name: unique on this relay (shared/protocol/join-code.ts). */
  private readonly codes = new Map<string, string>();

  constructor(private readonly opts: LabsOptions) {}

  get dataDir(): string {
    return this.opts.dataDir;
  }

  get(name: string): Lab | undefined {
    return this.labs.get(name);
  }

  /** The lab a join code stands for. */
  byCode(code: string): Lab | undefined {
    const name = this.codes.get(code);
    return name === undefined ? undefined : this.labs.get(name);
  }

  list(): Lab[] {
    return [...this.labs.values()];
  }

  /** Brings back every lab saved in the data folder. Files that do not parse are skipped and reported. */
  async loadAll(): Promise<string[]> {
    await mkdir(this.opts.dataDir, { recursive: true });
    const names: string[] = [];
    for (const file of await readdir(this.opts.dataDir)) {
      if (!file.endsWith(CONFIG_SUFFIX)) continue;
      try {
        const parsed = LabConfigSchema.safeParse(JSON.parse(await readFile(join(this.opts.dataDir, file), 'utf8')));
        if (!parsed.success || this.labs.has(parsed.data.name)) throw new Error(`bad lab file ${file}`);
        await this.open(parsed.data);
        names.push(parsed.data.name);
      } catch (err) {
        this.opts.onError(err);
      }
    }
    return names;
  }

  async create(body: CreateLab): Promise<Result<Lab>> {
    if (this.labs.has(body.name) || this.creating.has(body.name)) return fail('LAB_EXISTS');
    if (this.labs.size + this.creating.size >= (this.opts.maxLabs ?? 100)) return fail('BAD_REQUEST', { message: 'Too many labs on this relay' });
    const config = newLabConfig(body, () => Math.floor(Math.random() * 2 ** 32));
    if (!config.ok) return config;
    // Claim the name before awaiting, so two concurrent creates cannot both succeed.
    this.creating.add(body.name);
    try {
      await mkdir(this.opts.dataDir, { recursive: true });
      const lab = await this.open(config.value);
      await this.save(lab);
      return ok(lab);
    } finally {
      this.creating.delete(body.name);
    }
  }

  /** Writes the lab's configuration (atomically: temp file, then rename), in order with earlier saves. */
  save(lab: Lab): Promise<void> {
    const path = join(this.opts.dataDir, `${lab.name}${CONFIG_SUFFIX}`);
    const text = JSON.stringify(lab.config, null, 2);
    const prev = this.saving.get(lab.name) ?? Promise.resolve();
    const next = prev.then(async () => {
      try {
        await writeFile(`${path}.tmp`, text);
        await rename(`${path}.tmp`, path);
      } catch (err) {
        this.opts.onError(err);
      }
    });
    this.saving.set(lab.name, next);
    return next;
  }

  /** Removes the lab; its processes are told they left. The trace file stays on disk. */
  async remove(name: string): Promise<boolean> {
    const lab = this.labs.get(name);
    if (!lab) return false;
    this.labs.delete(name);
    this.codes.delete(lab.joinCode);
    lab.tellAll(() => ({ type: 'left' }));
    for (const e of lab.processes.list()) if (e.conn) lab.processes.release(e, 0);
    await lab.close();
    await this.saving.get(name);
    await rm(join(this.opts.dataDir, `${name}${CONFIG_SUFFIX}`), { force: true });
    return true;
  }

  async close(): Promise<void> {
    await Promise.all(this.list().map((lab) => lab.close()));
    await Promise.all(this.saving.values());
  }

  private async open(config: Lab['config']): Promise<Lab> {
    const path = TraceStore.pathFor(this.opts.dataDir, config.name);
    const tail = await loadTail(path);
    const store = new TraceStore(path, this.opts.traceFlushMs ?? 200, this.opts.onError);
    const lab = new Lab(config, { ...this.opts, store, tail: tail.nextSeq > 0 ? tail : undefined });
    this.labs.set(config.name, lab);
    // The codes' space (11^6) dwarfs the 100 labs a relay holds, so this ends at once.
    lab.joinCode = newJoinCode((c) => this.codes.has(c));
    this.codes.set(lab.joinCode, config.name);
    return lab;
  }
}
