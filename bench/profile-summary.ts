// npx tsx bench/profile-summary.ts <file.cpuprofile | file.heapprofile> [--top 25]
// Where the time goes in a `node --cpu-prof` profile: self time per function and per file, as
// shares of all samples (idle and GC listed apart), so a missed target can be explained by name.
// A sampled heap profile (`npm run bench -- --alloc-profile`) gets the same table in bytes
// allocated: who makes the garbage that sets the collector off.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Hotspot {
  name: string;
  where: string;
  /** ms of self time (CPU profile) or MB allocated (heap profile). */
  amount: number;
  share: number;
}

export interface ProfileSummary {
  /** ms sampled (CPU) or MB allocated (heap). */
  total: number;
  idleShare: number;
  functions: Hotspot[];
  files: Hotspot[];
}

export function summarizeProfile(p: CpuProfile, top = 25): ProfileSummary {
  const byNode = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = Math.max(0, p.timeDeltas[i] ?? 0);
    total += dt;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + dt);
  }
  const t = new Tally();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const f = byNode.get(id)!.callFrame;
    if (f.functionName === '(idle)') idle += us;
    t.add(f, us);
  }
  // Microseconds to ms.
  return { ...t.ranked(total, 1000, top), idleShare: Math.round((idle / total) * 1000) / 10 };
}

/** Amounts per function and per file, ranked with their shares of `total`, scaled by 1/`unit`. */
class Tally {
  private readonly fns = new Map<string, Hotspot>();
  private readonly files = new Map<string, Hotspot>();

  add(f: ProfileNode['callFrame'], amount: number): void {
    const file = shortUrl(f.url) || f.functionName;
    const where = `${file}:${f.lineNumber + 1}`;
    bump(this.fns, `${f.functionName}@${where}`, f.functionName || '(anonymous)', where, amount);
    bump(this.files, file, file, '', amount);
  }

  ranked(
    total: number,
    unit: number,
    top: number,
  ): Pick<ProfileSummary, 'total' | 'functions' | 'files'> {
    const rank = (m: Map<string, Hotspot>): Hotspot[] =>
      [...m.values()]
        .sort((a, b) => b.amount - a.amount)
        .slice(0, top)
        .map((h) => ({
          ...h,
          amount: Math.round((h.amount / unit) * 10) / 10,
          share: Math.round((h.amount / total) * 1000) / 10,
        }));
    return { total: Math.round(total / unit), functions: rank(this.fns), files: rank(this.files) };
  }
}

function bump(
  m: Map<string, Hotspot>,
  key: string,
  name: string,
  where: string,
  amount: number,
): void {
  const h = m.get(key);
  if (h) h.amount += amount;
  else m.set(key, { name, where, amount, share: 0 });
}

function shortUrl(url: string): string {
  return url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'node_modules/')
    .replace(`${process.cwd()}/`, '');
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated per function and per file in a sampled heap profile (in MB). */
export function summarizeHeapProfile(p: { head: HeapNode }, top = 25): ProfileSummary {
  const t = new Tally();
  let total = 0;
  const stack: HeapNode[] = [p.head];
  for (let n = stack.pop(); n; n = stack.pop()) {
    stack.push(...n.children);
    if (n.selfSize === 0) continue;
    total += n.selfSize;
    t.add(n.callFrame, n.selfSize);
  }
  // Bytes to MB.
  return { ...t.ranked(total, 1e6, top), idleShare: 0 };
}

export function formatHeapSummary(s: ProfileSummary): string {
  return format(s, `${s.total} MB allocated (sampled)`, 'bytes allocated', 'MB');
}

export function formatSummary(s: ProfileSummary): string {
  return format(s, `total ${s.total} ms sampled, idle ${s.idleShare}%`, 'self time', 'ms');
}

function format(s: ProfileSummary, heading: string, what: string, unit: string): string {
  const row = (h: Hotspot, where: boolean) =>
    `  ${h.share.toFixed(1).padStart(5)}%  ${String(h.amount).padStart(8)} ${unit}  ${h.name}${where ? `  ${h.where}` : ''}`;
  return [
    heading,
    '',
    `${what} by function:`,
    ...s.functions.map((h) => row(h, true)),
    '',
    `${what} by file:`,
    ...s.files.map((h) => row(h, false)),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  for (const file of positionals) {
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile | { head: HeapNode };
    const text =
      'head' in profile
        ? formatHeapSummary(summarizeHeapProfile(profile, Number(values.top)))
        : formatSummary(summarizeProfile(profile, Number(values.top)));
    console.log(`== ${file}\n${text}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
