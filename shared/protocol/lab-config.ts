// Schemas for a lab's configuration: algorithm, ids, ring order, timing bounds and fabric rules.
// Used by the REST API (request bodies), the wire protocol (what a process is told on join)
// and the browser's control panel. Types are inferred from the schemas, never written twice.
import { z } from 'zod';
import { ALGORITHM_NAMES } from '../algorithms/algorithm.ts';

export const LabName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'letters, digits, - and _, at most 64');
/** The largest process id a lab may have. */
export const MAX_PROCESS_ID = 1_000_000;
export const ProcessIdSchema = z.int().min(0).max(MAX_PROCESS_ID);
export const AlgorithmNameSchema = z.enum(ALGORITHM_NAMES);
export const DetectorSchema = z.enum(['heartbeat', 'poll', 'none']);

export const TimingSchema = z
  .object({
    transmission: z.number().positive().max(60_000),
    processing: z.number().min(0).max(60_000),
    heartbeatInterval: z.number().positive().max(600_000),
    heartbeatTimeout: z.number().positive().max(600_000),
  })
  .strict();

const LinkRulesSchema = z
  .object({
    delay: z.number().min(0).max(60_000),
    jitter: z.number().min(0).max(60_000),
    /** Loss probability. With lossMode 'burst' this is the long-run average (Gilbert-Elliott). */
    loss: z.number().min(0).max(1),
    lossMode: z.enum(['independent', 'burst']),
    /** Mean length of a loss burst, in messages (burst mode only). */
    burstLength: z.number().min(1).max(1000),
    duplicate: z.number().min(0).max(1),
  })
  .strict();

export const DEFAULT_LINK: LinkRules = {
  delay: 20,
  jitter: 0,
  loss: 0,
  lossMode: 'independent',
  burstLength: 3,
  duplicate: 0,
};

const LinkOverrideSchema = LinkRulesSchema.partial()
  .extend({ from: ProcessIdSchema, to: ProcessIdSchema })
  .strict();

export const FabricSchema = z
  .object({
    link: LinkRulesSchema,
    /** Directed overrides: from -> to only. */
    links: z.array(LinkOverrideSchema).max(10_000),
    /** Off: every link is FIFO. On: jitter may reorder messages on a link. */
    reorder: z.boolean(),
    /** 1 = real time; 10 = ten times slower (delays and the processes' timeouts scale alike). */
    timeScale: z.number().min(0.1).max(100),
  })
  .strict();

export const DEFAULT_FABRIC: FabricConfig = {
  link: DEFAULT_LINK,
  links: [],
  reorder: false,
  timeScale: 1,
};

/** PUT /api/labs/:lab/fabric body: any subset; `link` fields merge into the current ones. */
export const FabricPatchSchema = z
  .object({
    link: LinkRulesSchema.partial().strict(),
    links: z.array(LinkOverrideSchema).max(10_000),
    reorder: z.boolean(),
    timeScale: z.number().min(0.1).max(100),
  })
  .partial()
  .strict();

/** A class playing by hand (shared/protocol/class-play.ts, docs/RUN_A_CLASS.md). */
export const PlaySchema = z
  .object({
    /** Every human tab plays by hand (bots keep running the lab's algorithm). */
    students: z.boolean(),
    /** These processes play by hand as well, whatever `students` says. */
    hand: z.array(ProcessIdSchema).max(1000),
    /** The coach shows what the reference would do (its marks of her mistakes show always). */
    hints: z.boolean(),
  })
  .strict();
export type Play = z.infer<typeof PlaySchema>;

export const DEFAULT_PLAY: Play = { students: false, hand: [], hints: false };

/** PUT /api/labs/:lab/play body: any subset. */
export const PlayPatchSchema = PlaySchema.partial().strict();
export type PlayPatch = z.infer<typeof PlayPatchSchema>;

/**
 * How much a lab may hold in flight (paused, or on slow links): past either bound a new message
 * is dropped with reason `overflow` and counted. The defaults let the 1,000-process worst case
 * (about 500,000 held at once) run with nothing lost; the instructor may raise them.
 */
const LimitsSchema = z
  .object({
    maxHeld: z.int().min(1000).max(5_000_000),
    maxHeldBytes: z
      .int()
      .min(2 ** 20)
      .max(2 ** 32),
  })
  .strict();
export type Limits = z.infer<typeof LimitsSchema>;
export const DEFAULT_LIMITS: Limits = { maxHeld: 1_000_000, maxHeldBytes: 256 * 2 ** 20 };

/** The largest job a lab may state: every table of the work layer is bounded by it (shared/work/). */
export const MAX_TASKS = 20_000;

/**
 * 003's work schedule run by the lab's processes (docs/WORK_SCHEDULE.md): task i counts the
 * primes in [i*size, (i+1)*size) and takes taskMs x the machine's slow factor.
 */
export const WorkloadSchema = z
  .object({
    tasks: z.int().min(1).max(MAX_TASKS),
    size: z.int().min(1).max(1000),
    taskMs: z.int().min(1).max(600_000),
    sharing: z.enum(['static', 'dynamic']),
    fencing: z.boolean(),
    slow: z
      .array(z.object({ id: ProcessIdSchema, factor: z.number().min(0.1).max(100) }).strict())
      .max(5000),
  })
  .strict();
export type Workload = z.infer<typeof WorkloadSchema>;

export const LabConfigSchema = z
  .object({
    name: LabName,
    algorithm: AlgorithmNameSchema,
    ids: z.array(ProcessIdSchema).min(1).max(5000),
    ring: z.array(ProcessIdSchema).max(5000),
    timing: TimingSchema,
    detector: DetectorSchema,
    options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
    fabric: FabricSchema,
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1),
    /** Absent: DEFAULT_LIMITS. */
    limits: LimitsSchema.optional(),
    /** The class's join code (shared/protocol/join-code.ts), fixed when the lab is made. */
    joinCode: z
      .string()
      .regex(/^[CFHJKRSTXYZ]{6}$/)
      .optional(),
    /** Hand play (shared/protocol/class-play.ts); absent: every tab runs the lab's algorithm. */
    play: PlaySchema.optional(),
    /** The work schedule the processes run over the election; absent: the election alone. */
    workload: WorkloadSchema.optional(),
  })
  .strict();

/** POST /api/labs body: a name; everything else defaults. `size` is shorthand for ids 0..size-1. */
export const CreateLabSchema = z
  .object({
    name: LabName,
    algorithm: AlgorithmNameSchema.optional(),
    ids: z.array(ProcessIdSchema).min(1).max(5000).optional(),
    size: z.int().min(1).max(5000).optional(),
    ring: z.array(ProcessIdSchema).max(5000).optional(),
    timing: TimingSchema.partial().strict().optional(),
    detector: DetectorSchema.optional(),
    options: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
    fabric: FabricPatchSchema.optional(),
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    limits: LimitsSchema.partial().strict().optional(),
    /** null: the election alone again. */
    workload: WorkloadSchema.nullable().optional(),
  })
  .strict();

/** PATCH-style update of a running lab's algorithm settings (restarts every process). */
export const UpdateLabSchema = CreateLabSchema.omit({ name: true, size: true }).strict();

export const PartitionSchema = z
  .object({ groups: z.array(z.array(ProcessIdSchema).max(5000)).min(1).max(100) })
  .strict();
/** POST /api/labs/:lab/step body: deliver or drop one held message; empty: deliver the next due one. */
export const StepSchema = z
  .object({ msg: z.int().min(1).optional(), action: z.enum(['deliver', 'drop']).optional() })
  .strict();
export type StepRequest = z.infer<typeof StepSchema>;

export const BotsSchema = z
  .object({ count: z.int().min(1).max(1000), ids: z.array(ProcessIdSchema).max(1000).optional() })
  .strict();

export type LinkRules = z.infer<typeof LinkRulesSchema>;
export type LinkOverride = z.infer<typeof LinkOverrideSchema>;
/** A lab's network settings (a lab's fabric, server/lab/lab.ts, applies them). */
export type FabricConfig = z.infer<typeof FabricSchema>;
export type FabricPatch = z.infer<typeof FabricPatchSchema>;
export type LabConfig = z.infer<typeof LabConfigSchema>;
export type CreateLab = z.infer<typeof CreateLabSchema>;
export type UpdateLab = z.infer<typeof UpdateLabSchema>;

export const DEFAULT_LAB_SIZE = 8;
