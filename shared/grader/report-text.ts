// The grade report as text: one line per case (pass or fail, and the reason), the figures of the
// failing ones measured against expected, where her run first parted from the reference's, the
// explorer's schedule, and the time per phase. The command line prints it; the tab shows the
// same report as a table.
import type { GradeReport } from './grading.ts';
import { describeFault } from './module-fault.ts';

export function formatReport(
  r: GradeReport,
  traces: ReadonlyMap<string, string> = new Map(),
): string {
  const out: string[] = [];
  out.push(`grade: ${r.subject} as ${r.algorithm}`);
  if (r.loadError) {
    out.push(`the module does not load: ${describeFault(r.loadError)}`);
    return out.join('\n');
  }
  const passed = r.cases.filter((c) => c.pass).length;
  for (const c of r.cases) {
    out.push(`${c.pass ? '  pass' : '  FAIL'}  ${c.id.padEnd(18)} ${c.title}`);
    // A pass of the explorer proves only what it checked: say how much (exhaustive or not).
    if (c.pass && c.group === 'explore')
      for (const f of c.figures) out.push(`        ${f.measured}`);
    // What the documents predict is said, with its citation, so it is not taken for her bug.
    for (const f of c.figures)
      if (f.predicted)
        out.push(
          `        expected behaviour, not a bug: ${f.name}: ${f.measured} (${f.predicted})`,
        );
    if (c.pass) continue;
    if (c.reason) out.push(`        why: ${c.reason}`);
    for (const f of c.figures)
      out.push(`        ${f.pass ? ' ' : '✗'} ${f.name}: ${f.measured} (expected ${f.expected})`);
    if (c.divergence) out.push(`        ${c.divergence}`);
    if (c.schedule) {
      out.push(
        `        the ${/random schedule/.test(c.reason ?? '') ? '' : 'shortest '}schedule found:`,
      );
      for (const line of c.schedule) out.push(`        ${line}`);
    }
    const trace = traces.get(c.id);
    if (trace) out.push(`        trace: ${trace} (open it in the replay page)`);
  }
  out.push(`${r.pass ? 'PASS' : 'FAIL'}: ${passed} of ${r.cases.length} cases passed`);
  out.push(
    `time: ${r.phases.map((p) => `${p.name} ${(p.ms / 1000).toFixed(2)} s`).join(', ')}; total ${(r.totalMs / 1000).toFixed(2)} s`,
  );
  return out.join('\n');
}
