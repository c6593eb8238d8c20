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
  const fns = new Map<string, Hotspot>();
  const files = new Map<string, Hotspot>();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const f = byNode.get(id)!.callFrame;
    if (f.functionName === '(idle)') idle += us;
    const file = shortUrl(f.url) || f.functionName;
    const key = `${f.functionName}@${file}:${f.lineNumber + 1}`;
    add(fns, key, f.functionName || '(anonymous)', `${file}:${f.lineNumber + 1}`, us);
    add(files, file, file, '', us);
  }
  const rank = (m: Map<string, Hotspot>): Hotspot[] =>
    [...m.values()]
      .sort((a, b) => b.amount - a.amount)
      .slice(0, top)
      .map((h) => ({ ...h, amount: Math.round(h.amount / 100) / 10, share: Math.round((h.amount / total) * 1000) / 10 }));
  return { total: Math.round(total / 1000), idleShare: Math.round((idle / total) * 1000) / 10, functions: rank(fns), files: rank(files) };
}

function add(m: Map<string, Hotspot>, key: string, name: string, where: string, us: number): void {
  const h = m.get(key);
  if (h) h.amount += us;
  else m.set(key, { name, where, amount: us, share: 0 });
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(`${process.cwd()}/`, '');
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated per function and per file in a sampled heap profile (in MB). */
export function summarizeHeapProfile(p: { head: HeapNode }, top = 25): ProfileSummary {
  const fns = new Map<string, Hotspot>();
  const files = new Map<string, Hotspot>();
  let total = 0;
  const stack: HeapNode[] = [p.head];
  for (let n = stack.pop(); n; n = stack.pop()) {
    stack.push(...n.children);
    if (n.selfSize === 0) continue;
    const f = n.callFrame;
    const file = shortUrl(f.url) || f.functionName;
    total += n.selfSize;
    add(fns, `${f.functionName}@${file}:${f.lineNumber + 1}`, f.functionName || '(anonymous)', `${file}:${f.lineNumber + 1}`, n.selfSize);
    add(files, file, file, '', n.selfSize);
  }
  const rank = (m: Map<string, Hotspot>): Hotspot[] =>
    [...m.values()]
      .sort((a, b) => b.amount - a.amount)
      .slice(0, top)
      .map((h) => ({ ...h, amount: Math.round(h.amount / 1e5) / 10, share: Math.round((h.amount / total) * 1000) / 10 }));
  return { total: Math.round(total / 1e6), idleShare: 0, functions: rank(fns), files: rank(files) };
}

export function formatHeapSummary(s: ProfileSummary): string {
  const lines = [`${s.total} MB allocated (sampled)`, '', 'bytes allocated by function:'];
  for (const h of s.functions) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.amount).padStart(8)} MB  ${h.name}  ${h.where}`);
  lines.push('', 'bytes allocated by file:');
  for (const h of s.files) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.amount).padStart(8)} MB  ${h.name}`);
  return lines.join('\n');
}

export function formatSummary(s: ProfileSummary): string {
  const lines = [`total ${s.total} ms sampled, idle ${s.idleShare}%`, '', 'self time by function:'];
  for (const h of s.functions) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.amount).padStart(8)} ms  ${h.name}  ${h.where}`);
  lines.push('', 'self time by file:');
  for (const h of s.files) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.amount).padStart(8)} ms  ${h.name}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  for (const file of positionals) {
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile | { head: HeapNode };
    const text = 'head' in profile ? formatHeapSummary(summarizeHeapProfile(profile, Number(values.top))) : formatSummary(summarizeProfile(profile, Number(values.top)));
    console.log(`== ${file}\n${text}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
