// The work schedule's experiment (issue 27; 003's "static sharing" against "dynamic sharing"):
// the same job on the same lab, with 0, 1, 2... workers crashing at random times during it, run
// once with the job split up front and once handed out by a coordinator. Each pair of runs shares
// its crash schedule, so the two columns differ only in the sharing. Pure: rows, CSV, figures.
import type { AlgorithmName, ProcessId } from '../algorithms/algorithm.ts';
import { getAlgorithm } from '../algorithms/registry.ts';
import { createRng, deriveSeed } from '../sim/rng.ts';
import { simulateWork, workHorizon } from '../work/work-sim.ts';
import { DEFAULT_JOB, type WorkJob } from '../work/work-job.ts';
import { renderChart, PALETTE, type Series } from './experiment-svg.ts';
import { cell, mean } from './experiment-tables.ts';

export interface WorkSweepSpec {
  algorithms: AlgorithmName[];
  /** Lab size: ids 0..n-1, n-1 the first coordinator. */
  n: number;
  tasks: number;
  taskMs: number;
  /** Numbers of workers crashed during the job (each at most n - 2: one worker stays). */
  crashes: number[];
  runs: number;
  seed: number;
  /** Link delay, ms. */
  delay: number;
}

const SHARINGS = ['static', 'dynamic'] as const;

export interface WorkRunRow {
  algorithm: AlgorithmName;
  n: number;
  tasks: number;
  sharing: (typeof SHARINGS)[number];
  crashes: number;
  run: number;
  seed: number;
  /** The crash schedule, `id@ms` joined by spaces. */
  crashed: string;
  completed: number;
  lost: number;
  duplicates: number;
  reassigned: number;
  /** Null when no result was kept. */
  makespanMs: number | null;
}

/**
 * `count` distinct processes other than the first coordinator crash, each at a time within the
 * time static sharing needs (its share of the job), so a crash strikes while there is work left.
 */
export function crashSchedule(
  n: number,
  job: WorkJob,
  count: number,
  seed: number,
): { id: ProcessId; at: number }[] {
  const rng = createRng(seed);
  const pool = Array.from({ length: n - 1 }, (_, i) => i);
  const span = Math.ceil(job.tasks / Math.max(1, n - 2)) * job.taskMs;
  const out: { id: ProcessId; at: number }[] = [];
  for (let k = 0; k < count && pool.length > 1; k++) {
    const [id] = pool.splice(Math.floor(rng() * pool.length), 1);
    out.push({ id: id!, at: 200 + Math.floor(rng() * span) });
  }
  return out.sort((a, b) => a.at - b.at || a.id - b.id);
}

/** Every run of the sweep: per algorithm, crash count and run, static then dynamic sharing. */
export function runWorkSweep(
  spec: WorkSweepSpec,
  progress?: (share: number, label: string) => void,
): WorkRunRow[] {
  const rows: WorkRunRow[] = [];
  const ids = Array.from({ length: spec.n }, (_, i) => i);
  const total = spec.algorithms.length * spec.crashes.length * spec.runs * SHARINGS.length;
  for (const algorithm of spec.algorithms)
    for (const c of spec.crashes)
      for (let run = 0; run < spec.runs; run++) {
        const seed = deriveSeed(spec.seed, c * 100_003 + run);
        for (const sharing of SHARINGS) {
          progress?.(rows.length / total, `${algorithm} ${sharing} ${c} crashes run ${run + 1}`);
          const job: WorkJob = { ...DEFAULT_JOB, tasks: spec.tasks, taskMs: spec.taskMs, sharing };
          const crashes = crashSchedule(spec.n, job, c, seed);
          const r = simulateWork(
            {
              algorithm: getAlgorithm(algorithm),
              ids,
              seed,
              link: { delay: spec.delay, jitter: 0 },
              detector: 'heartbeat',
              crashes,
              until: workHorizon(job, ids) + Math.max(0, ...crashes.map((x) => x.at)),
              trace: false,
            },
            job,
          );
          rows.push({
            algorithm,
            n: spec.n,
            tasks: spec.tasks,
            sharing,
            crashes: c,
            run,
            seed,
            crashed: crashes.map((x) => `${x.id}@${x.at}`).join(' '),
            completed: r.tasks.completed,
            lost: r.tasks.lost,
            duplicates: r.tasks.duplicates,
            reassigned: r.tasks.reassigned,
            makespanMs: r.tasks.makespanMs,
          });
        }
      }
  progress?.(1, 'done');
  return rows;
}

export const WORK_COLUMNS = [
  'algorithm',
  'n',
  'tasks',
  'sharing',
  'crashes',
  'run',
  'seed',
  'crashed',
  'completed',
  'lost',
  'duplicates',
  'reassigned',
  'makespan_ms',
] as const;

export function workCsv(rows: readonly WorkRunRow[]): string {
  const lines = [WORK_COLUMNS.join(',')];
  for (const r of rows)
    lines.push(
      [
        r.algorithm,
        r.n,
        r.tasks,
        r.sharing,
        r.crashes,
        r.run,
        r.seed,
        r.crashed,
        r.completed,
        r.lost,
        r.duplicates,
        r.reassigned,
        r.makespanMs ?? '',
      ]
        .map(cell)
        .join(','),
    );
  return lines.join('\n') + '\n';
}

/** Per algorithm and sharing: the mean of `value` at each crash count (runs where it is null left out). */
function series(rows: readonly WorkRunRow[], value: (r: WorkRunRow) => number | null): Series[] {
  const keys = [...new Set(rows.map((r) => `${r.algorithm}|${r.sharing}`))];
  return keys.map((k, i) => {
    const [a, sharing] = k.split('|');
    const mine = rows.filter((r) => r.algorithm === a && r.sharing === sharing);
    const cs = [...new Set(mine.map((r) => r.crashes))].sort((x, y) => x - y);
    const points = cs
      .map((c) => {
        const vs = mine
          .filter((r) => r.crashes === c)
          .map(value)
          .filter((v): v is number => v !== null);
        return [c, mean(vs)] as [number, number];
      })
      .filter(([, y]) => Number.isFinite(y));
    const color = PALETTE[(sharing === 'static' ? 1 : 0) + 2 * Math.floor(i / 2)]!;
    return {
      name: `${a}, ${sharing} sharing`,
      color,
      style: 'both',
      points,
      hollow: sharing === 'static',
    };
  });
}

/** Two figures: makespan and results lost, each against the number of workers crashed. */
export function workFigures(rows: readonly WorkRunRow[]): { file: string; svg: string }[] {
  const n = rows[0]?.n ?? 0;
  const tasks = rows[0]?.tasks ?? 0;
  return [
    {
      file: 'work-makespan.svg',
      svg: renderChart({
        title: `Makespan against crashes (${tasks} tasks, ${n} processes)`,
        xLabel: 'workers crashed during the job',
        yLabel: 'ms to the last result kept (mean; static: of what it kept)',
        series: series(rows, (r) => r.makespanMs),
        yInclude: [0],
      }),
    },
    {
      file: 'work-lost.svg',
      svg: renderChart({
        title: `Results lost against crashes (${tasks} tasks, ${n} processes)`,
        xLabel: 'workers crashed during the job',
        yLabel: 'results lost (mean)',
        series: series(rows, (r) => r.lost),
        yInclude: [0],
      }),
    },
  ];
}

/** A Markdown table: per crash count, static against dynamic (means over the runs). */
export function workSummary(rows: readonly WorkRunRow[]): string {
  const out: string[] = [];
  for (const a of [...new Set(rows.map((r) => r.algorithm))]) {
    out.push(`### ${a}: static against dynamic sharing\n`);
    out.push(
      '| crashes | static lost | dynamic lost | static makespan (ms) | dynamic makespan (ms) | dynamic reassigned |',
    );
    out.push('|---|---|---|---|---|---|');
    const mine = rows.filter((r) => r.algorithm === a);
    for (const c of [...new Set(mine.map((r) => r.crashes))].sort((x, y) => x - y)) {
      const of = (s: string) => mine.filter((r) => r.crashes === c && r.sharing === s);
      const m = (rs: WorkRunRow[], v: (r: WorkRunRow) => number | null) => {
        const x = mean(rs.map(v).filter((y): y is number => y !== null));
        return Number.isFinite(x) ? String(Math.round(x * 10) / 10) : 'none';
      };
      out.push(
        `| ${c} | ${m(of('static'), (r) => r.lost)} | ${m(of('dynamic'), (r) => r.lost)} | ${m(of('static'), (r) => r.makespanMs)} | ${m(of('dynamic'), (r) => r.makespanMs)} | ${m(of('dynamic'), (r) => r.reassigned)} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
