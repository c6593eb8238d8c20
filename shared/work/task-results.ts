// Results by task id in chunks of 256 (-1: none), so recording one is a copy of one chunk and of
// the list of chunks: the coordinator's table and the analyser's store hold up to a job's every
// result, and copying them whole on every step was most of a large run's time
// (docs/WORK_SCHEDULE.md, `npm run bench:core`).
const CHUNK = 256;

export type Results = readonly (readonly number[])[];

export function noResults(tasks: number): Results {
  const chunks: number[][] = [];
  for (let at = 0; at < tasks; at += CHUNK)
    chunks.push(new Array<number>(Math.min(CHUNK, tasks - at)).fill(-1));
  return chunks;
}

export const has = (r: Results, task: number): boolean =>
  (r[Math.floor(task / CHUNK)]?.[task % CHUNK] ?? -1) >= 0;

export function withResult(r: Results, task: number, value: number): Results {
  const c = Math.floor(task / CHUNK);
  if (!r[c] || task < 0) return r;
  const chunk = r[c].slice();
  chunk[task % CHUNK] = value;
  const out = r.slice();
  out[c] = chunk;
  return out;
}

/** [task, value] for every result, by task. */
export function entries(r: Results): [number, number][] {
  const out: [number, number][] = [];
  r.forEach((chunk, c) => chunk.forEach((v, i) => v >= 0 && out.push([c * CHUNK + i, v])));
  return out;
}

export function fromRecord(tasks: number, ...records: Readonly<Record<number, number>>[]): Results {
  let out = noResults(tasks);
  for (const rec of records)
    for (const [t, v] of Object.entries(rec)) out = withResult(out, Number(t), v);
  return out;
}
