// The relay's labs by name. Each lab's configuration is kept in DATA_DIR/<lab>.lab.json and its
// trace in DATA_DIR/<lab>.jsonl, so after a restart every lab comes back with its trace, its
// sequence numbers and its processes' clocks; processes then rejoin.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import { LabConfigSchema, type CreateLab, type LabConfig } from '@shared/protocol/lab-config.ts';
import { Lab, type LabDeps } from './lab.ts';
import { newLabConfig } from './lab-settings.ts';
import { DiskBudget } from '../trace/disk-budget.ts';
import { DEFAULT_TRACE_MAX_BYTES, TraceStore, type WriteGuard } from '../trace/trace-store.ts';
import {
  applyState,
  readState,
  stateOf,
  statePath,
  StateWriter,
  type LabState,
} from './lab-state.ts';
import { loadTail } from '../trace/trace-tail.ts';
import { lessonPath } from './lesson-store.ts';
import { fencePath, LabFence, readFence } from './lab-fence.ts';
import { newJoinCode } from '@shared/protocol/join-code.ts';

/** What a cluster (server/cluster/) must say when a lab is created, changed or removed here. */
export interface LabsCluster {
  /** Reserves the name cluster-wide and takes the lease; the value is the fencing epoch. */
  claim(config: LabConfig): Promise<Result<number>>;
  updated(config: LabConfig): Promise<void>;
  removed(name: string): Promise<void>;
  /** The instructor's state of a lab (lab-state.ts) kept in the shared store, for the next owner. */
  saveState(name: string, state: LabState): void;
  /** Join code -> lab name over every lab of the cluster. */
  joinCodes(): Promise<Map<string, string>>;
  loadState(name: string): Promise<LabState | null>;
  /** May this relay write the lab's trace now, as the owner of `epoch` (see WriteGuard)? */
  guard(name: string, epoch: number): ReturnType<WriteGuard>;
  /** A newer owner's epoch is in the lab's fence record: let the lab go. */
  fenced(name: string): void;
  readonly relayId: string;
}

interface LabsOptions extends Omit<LabDeps, 'store' | 'tail'> {
  dataDir: string;
  traceFlushMs?: number;
  /** Most labs at once (each holds timers, files and memory). */
  maxLabs?: number;
  /** A lab's trace size past which it goes lean (trace-store.ts); default 1 GiB. */
  traceMaxBytes?: number;
  /** All traces together (archives included); default: half the free disk at start, at most 16 GiB. */
  diskBudgetBytes?: number;
  /** Bytes a trace may have waiting for the disk (trace-store.ts; default 32 MiB). */
  traceMaxPendingBytes?: number;
  /** Test hook: every trace write first waits this long per MiB. */
  traceWriteMsPerMiB?: number;
  /** Set when the relay is one of several (REDIS_URL): labs are placed and leased through it. */
  cluster?: LabsCluster;
  /** Called whenever a lab is created, removed, taken over or let go (the lab list's observers). */
  onChange?: () => void;
  /** A lab was removed or let go: what hangs on it elsewhere (its lesson) is let go first. */
  onGone?: (lab: Lab) => Promise<void>;
}

const CONFIG_SUFFIX = '.lab.json';

export class Labs {
  private readonly labs = new Map<string, Lab>();
  private readonly saving = new Map<string, Promise<void>>();
  private readonly creating = new Set<string>();
  private readonly writers = new Map<string, StateWriter>();

  private budget: DiskBudget | null = null;
  /** Join code -> lab name: unique on this relay (shared/protocol/join-code.ts). */
  private readonly codes = new Map<string, string>();

  constructor(private readonly opts: LabsOptions) {}

  /** For /api/health: the traces' bytes against the budget, and the labs whose traces went lean, fell behind the disk or filled. */
  traceUsage(): {
    bytes: number;
    budget: number | null;
    lean: string[];
    behind: string[];
    full: string[];
  } {
    const labs = this.list();
    return {
      bytes: this.budget?.used ?? 0,
      budget: this.budget?.limit ?? null,
      lean: labs.filter((l) => l.deps.store.lean).map((l) => l.name),
      behind: labs.filter((l) => l.deps.store.behind).map((l) => l.name),
      full: labs.filter((l) => l.deps.store.full).map((l) => l.name),
    };
  }

  /** The traces' disk budget (measured on first use). */
  async diskBudget(): Promise<DiskBudget> {
    if (!this.budget) {
      await mkdir(this.opts.dataDir, { recursive: true });
      this.budget = await DiskBudget.measure(this.opts.dataDir, this.opts.diskBudgetBytes);
    }
    return this.budget;
  }

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
        const parsed = LabConfigSchema.safeParse(
          JSON.parse(await readFile(join(this.opts.dataDir, file), 'utf8')),
        );
        if (!parsed.success || this.labs.has(parsed.data.name))
          throw new Error(`bad lab file ${file}`);
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
    if (this.labs.size + this.creating.size >= (this.opts.maxLabs ?? 100))
      return fail('BAD_REQUEST', { message: 'Too many labs on this relay' });
    const config = newLabConfig(body, () => Math.floor(Math.random() * 2 ** 32));
    if (!config.ok) return config;
    // Claim the name before awaiting, so two concurrent creates cannot both succeed.
    this.creating.add(body.name);
    try {
      // The join code is unique on this relay, and in a cluster among every relay's labs.
      const elsewhere = (await this.opts.cluster?.joinCodes()) ?? new Map<string, string>();
      config.value.joinCode = newJoinCode((c) => this.codes.has(c) || elsewhere.has(c));
      const claimed = this.opts.cluster ? await this.opts.cluster.claim(config.value) : null;
      if (claimed && !claimed.ok) return claimed;
      await mkdir(this.opts.dataDir, { recursive: true });
      const lab = await this.open(config.value, claimed?.value);
      if (claimed)
        lab.record({
          kind: 'owner',
          relay: this.opts.cluster!.relayId,
          epoch: claimed.value,
          previous: null,
        });
      await this.save(lab);
      this.opts.onChange?.();
      return ok(lab);
    } finally {
      this.creating.delete(body.name);
    }
  }

  /** Writes the lab's configuration (atomically: temp file, then rename), in order with earlier saves. */
  save(lab: Lab): Promise<void> {
    if (lab.deps.fence && !lab.deps.fence.holds()) return Promise.resolve();
    void this.opts.cluster?.updated(lab.config);
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
    // Before its lesson file is removed: a lesson save still under way would write it back.
    await this.opts.onGone?.(lab);
    await this.saving.get(name);
    await this.writers.get(name)?.flushed();
    this.writers.delete(name);
    await rm(join(this.opts.dataDir, `${name}${CONFIG_SUFFIX}`), { force: true });
    await rm(statePath(this.opts.dataDir, name), { force: true });
    await rm(lessonPath(this.opts.dataDir, name), { force: true });
    await this.opts.cluster?.removed(name);
    this.opts.onChange?.();
    return true;
  }

  /** Opens a lab another relay owned (a takeover) with this relay's epoch: its trace continues from the shared folder. */
  async adopt(config: LabConfig, epoch: number): Promise<Lab> {
    await mkdir(this.opts.dataDir, { recursive: true });
    const lab = await this.open(config, epoch);
    await this.save(lab);
    this.opts.onChange?.();
    return lab;
  }

  /**
   * Lets go of a lab whose lease went to another relay: its processes and observers are told
   * where it went (`moved`), its trace is flushed, and nothing on disk is removed.
   */
  async drop(name: string, url: string | null): Promise<void> {
    const lab = this.labs.get(name);
    if (!lab) return;
    this.labs.delete(name);
    const moved = url ? { type: 'moved' as const, lab: name, url } : { type: 'left' as const };
    lab.tellAll(() => moved);
    lab.observers.broadcast(JSON.stringify(moved));
    await lab.close();
    await this.opts.onGone?.(lab);
    this.opts.onChange?.();
  }

  /**
   * Resolves once the lab's crashed ids, partition and pause are on disk: a control route answers
   * after it, so what the instructor was told happened survives a kill -9 right after.
   */
  async stateSaved(name: string): Promise<void> {
    await this.writers.get(name)?.flushed();
  }

  async close(): Promise<void> {
    await Promise.all(this.list().map((lab) => lab.close()));
    await Promise.all(this.saving.values());
    await Promise.all([...this.writers.values()].map((w) => w.flushed()));
  }

  /** `epoch`: the cluster lease's fencing epoch (a lone relay keeps the one on disk). */
  private async open(config: Lab['config'], epoch?: number): Promise<Lab> {
    const path = TraceStore.pathFor(this.opts.dataDir, config.name);
    // The fence record first: a new owner's epoch is on disk before it reads or writes the trace.
    const fenceFile = fencePath(this.opts.dataDir, config.name);
    const marks = readFence(fenceFile, this.opts.onError);
    const fence = new LabFence(fenceFile, epoch ?? marks?.epoch ?? 0, this.opts.onError);
    fence.reserve(marks?.seq ?? 0, marks?.msg ?? 1);
    // Only the end of the trace is read (a torn last line is cut off), then the instructor's state.
    const tail = await loadTail(path);
    // Numbers start past the trace's last event and past every number reserved before (a lean
    // trace does not hold its message events, whose numbers observers saw).
    tail.nextSeq = Math.max(tail.nextSeq, marks?.seq ?? 0);
    tail.nextMsg = Math.max(tail.nextMsg, marks?.msg ?? 1);
    const stateFile = statePath(this.opts.dataDir, config.name);
    // In a cluster the state comes from Redis (written by whichever relay owned the lab last).
    const saved =
      (await this.opts.cluster?.loadState(config.name)) ??
      (await readState(stateFile, this.opts.onError));
    const limits = {
      maxBytes: this.opts.traceMaxBytes ?? DEFAULT_TRACE_MAX_BYTES,
      budget: await this.diskBudget(),
      ...(this.opts.traceMaxPendingBytes !== undefined
        ? { maxPendingBytes: this.opts.traceMaxPendingBytes }
        : {}),
      ...(this.opts.traceWriteMsPerMiB ? { writeMsPerMiB: this.opts.traceWriteMsPerMiB } : {}),
    };
    const store = new TraceStore(
      path,
      this.opts.traceFlushMs ?? 200,
      this.opts.onError,
      limits,
      tail.size,
    );
    const writer = new StateWriter(stateFile, this.opts.onError);
    const cluster = this.opts.cluster;
    store.guard = () =>
      !fence.holds() ? 'refuse' : cluster ? cluster.guard(config.name, fence.epoch) : 'write';
    fence.onFenced = () =>
      cluster ? cluster.fenced(config.name) : void this.drop(config.name, null);
    const onStateChange = () => {
      if (!fence.holds()) return;
      const state = stateOf(lab);
      void writer.save(state);
      this.opts.cluster?.saveState(config.name, state);
    };
    const lab: Lab = new Lab(config, {
      ...this.opts,
      store,
      fence,
      tail: tail.nextSeq > 0 ? tail : undefined,
      onStateChange,
    });
    if (saved) applyState(lab, saved);
    if (tail.tornBytes > 0) {
      this.opts.onError(
        new Error(
          `${path}: cut off a torn last line of ${tail.tornBytes} bytes (the relay stopped in the middle of a write)`,
        ),
      );
      lab.record({
        kind: 'note',
        text: `trace repaired at start: a torn last line of ${tail.tornBytes} bytes was cut off`,
      });
    }
    this.labs.set(config.name, lab);
    this.writers.set(config.name, writer);
    // The codes' space (11^6) dwarfs the 100 labs a relay holds, so this ends at once.
    // A lab keeps its join code for life (it is in its configuration); an older lab gets one now.
    lab.joinCode = config.joinCode ?? newJoinCode((c) => this.codes.has(c));
    if (!config.joinCode) lab.config = { ...lab.config, joinCode: lab.joinCode };
    this.codes.set(lab.joinCode, config.name);
    return lab;
  }
}
