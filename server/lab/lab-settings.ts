// Pure functions from request bodies to lab configurations: defaults for a new lab, an update of
// a running one, fabric patches, partitions, and what a process is told (timing scaled by the
// lab's time scale). Errors are values: the REST layer turns them into 4xx answers.
import { DEFAULT_TIMING, type ProcessId } from '@shared/algorithms/algorithm.ts';
import { fail, ok, type Result } from '@shared/protocol/errors.ts';
import {
  DEFAULT_FABRIC,
  DEFAULT_LAB_SIZE,
  DEFAULT_LIMITS,
  type CreateLab,
  type FabricConfig,
  type FabricPatch,
  type LabConfig,
  type UpdateLab,
} from '@shared/protocol/lab-config.ts';
import type { ProcessConfig } from '@shared/protocol/frames.ts';

export function newLabConfig(body: CreateLab, randomSeed: () => number): Result<LabConfig> {
  if (body.ids && body.size !== undefined)
    return fail('BAD_REQUEST', {
      details: ['ids', 'size'],
      message: 'Give either ids or size, not both',
    });
  const ids = normaliseIds(body.ids ?? range(body.size ?? DEFAULT_LAB_SIZE));
  const ring = body.ring ?? ids;
  const bad = checkRing(ring, ids);
  if (bad) return bad;
  return ok({
    name: body.name,
    algorithm: body.algorithm ?? 'bully',
    ids,
    ring: [...ring],
    timing: { ...DEFAULT_TIMING, ...body.timing },
    detector: body.detector ?? 'heartbeat',
    options: { ...body.options },
    fabric: mergeFabric(DEFAULT_FABRIC, body.fabric ?? {}),
    seed: body.seed ?? randomSeed(),
    ...(body.limits ? { limits: { ...DEFAULT_LIMITS, ...body.limits } } : {}),
    ...(body.workload ? { workload: body.workload } : {}),
  });
}

/** A running lab's new settings. A new id set without a ring resets the ring to ascending ids. */
export function updatedLabConfig(config: LabConfig, body: UpdateLab): Result<LabConfig> {
  const ids = body.ids ? normaliseIds(body.ids) : config.ids;
  const idsChanged = body.ids !== undefined && !sameIds(ids, config.ids);
  const ring = body.ring ?? (idsChanged ? ids : config.ring);
  const bad = checkRing(ring, ids);
  if (bad) return bad;
  const { workload: _old, ...rest } = config;
  const workload = body.workload === undefined ? config.workload : body.workload;
  return ok({
    ...rest,
    ...(workload ? { workload } : {}),
    algorithm: body.algorithm ?? config.algorithm,
    ids,
    ring: [...ring],
    timing: { ...config.timing, ...body.timing },
    detector: body.detector ?? config.detector,
    options: body.options ? { ...body.options } : config.options,
    fabric: body.fabric ? mergeFabric(config.fabric, body.fabric) : config.fabric,
    seed: body.seed ?? config.seed,
    ...(body.limits || config.limits
      ? { limits: { ...DEFAULT_LIMITS, ...config.limits, ...body.limits } }
      : {}),
  });
}

/** `link` fields merge into the current default link; `links` replaces the override list. */
export function mergeFabric(fabric: FabricConfig, patch: FabricPatch): FabricConfig {
  return {
    link: { ...fabric.link, ...definedOnly(patch.link ?? {}) },
    links: patch.links ?? fabric.links,
    reorder: patch.reorder ?? fabric.reorder,
    timeScale: patch.timeScale ?? fabric.timeScale,
  };
}

/** Every id in the groups must be in the lab, and in one group only. */
export function checkPartition(
  groups: ProcessId[][],
  ids: readonly ProcessId[],
): Result<ProcessId[][]> {
  const known = new Set(ids);
  const seen = new Set<ProcessId>();
  const details: string[] = [];
  groups.forEach((g, i) =>
    g.forEach((id, j) => {
      if (!known.has(id)) details.push(`groups.${i}.${j}: id ${id} is not in the lab`);
      else if (seen.has(id)) details.push(`groups.${i}.${j}: id ${id} is in two groups`);
      seen.add(id);
    }),
  );
  if (details.length)
    return fail('BAD_REQUEST', {
      details,
      message: 'Partition groups must hold lab ids, each in one group',
    });
  return ok(groups.map((g) => [...g]));
}

/** What every process of the lab runs with: timing scaled by the time scale, so timeouts stretch with the delays. */
export function processConfigOf(config: LabConfig): ProcessConfig {
  const s = config.fabric.timeScale;
  const t = config.timing;
  return {
    algorithm: config.algorithm,
    ids: config.ids,
    ring: config.ring,
    timing: {
      transmission: t.transmission * s,
      processing: t.processing * s,
      heartbeatInterval: t.heartbeatInterval * s,
      heartbeatTimeout: t.heartbeatTimeout * s,
    },
    detector: config.detector,
    options: config.options,
    seed: config.seed,
    ...(config.workload ? { workload: config.workload } : {}),
  };
}

function checkRing(ring: readonly ProcessId[], ids: readonly ProcessId[]): Result<never> | null {
  const set = new Set(ring);
  if (ring.length !== ids.length || set.size !== ring.length || ids.some((id) => !set.has(id))) {
    return fail('BAD_REQUEST', {
      details: ['ring'],
      message: 'The ring order must list every id of the lab exactly once',
    });
  }
  return null;
}

function normaliseIds(ids: readonly ProcessId[]): ProcessId[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

function sameIds(a: readonly ProcessId[], b: readonly ProcessId[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function range(n: number): ProcessId[] {
  return Array.from({ length: n }, (_, i) => i);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
