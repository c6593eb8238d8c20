// npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25]
// Where the time goes in a `node --cpu-prof` profile: self time per function and per file, as
// shares of all samples (idle and GC listed apart), so a missed target can be explained by name.
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
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
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
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((h) => ({ ...h, ms: Math.round(h.ms / 100) / 10, share: Math.round((h.ms / total) * 1000) / 10 }));
  return { totalMs: Math.round(total / 1000), idleShare: Math.round((idle / total) * 1000) / 10, functions: rank(fns), files: rank(files) };
}

function add(m: Map<string, Hotspot>, key: string, name: string, where: string, us: number): void {
  const h = m.get(key);
  if (h) h.ms += us;
  else m.set(key, { name, where, ms: us, share: 0 });
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/work\/main\//, '');
}

export function formatSummary(s: ProfileSummary): string {
  const lines = [`total ${s.totalMs} ms sampled, idle ${s.idleShare}%`, '', 'self time by function:'];
  for (const h of s.functions) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.ms).padStart(8)} ms  ${h.name}  ${h.where}`);
  lines.push('', 'self time by file:');
  for (const h of s.files) lines.push(`  ${h.share.toFixed(1).padStart(5)}%  ${String(h.ms).padStart(8)} ms  ${h.name}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  for (const file of positionals) {
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    console.log(`== ${file}\n${formatSummary(summarizeProfile(profile, Number(values.top)))}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
