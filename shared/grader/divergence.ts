// Where a student's run first parts from the reference's on the same case: both traces reduced
// to what the documents talk about (who sends which election message to whom, and what each
// process believes: leading or not, its coordinator, electing or not), grouped by virtual time,
// and compared instant by instant. Heartbeats and polls are left out (steady load, and the host
// runs the detector for her), and so are timer names and message fields (hers may differ and
// still be right). The first instant whose sets differ is the divergence; the event her process
// was handling there is named: the last input her process (or, for something only the reference
// did, the reference's process) took before that very output, in the trace's order, so that of
// two inputs at one instant (an ACK timer firing, then the ACK arriving) the one that caused it is
// named, not merely the last.
import type { ProcessId } from '../algorithms/algorithm.ts';
import { leads } from '../analysis/properties.ts';
import type { TraceEvent } from '../protocol/trace.ts';
import { describeEvent, describeInput } from '../protocol/trace-format.ts';

interface Divergence {
  t: number;
  /** The process whose behaviour differs first. */
  process: ProcessId;
  /** What her process was handling then (from her trace), if anything. */
  event: string | null;
  reference: string[];
  yours: string[];
}

interface Item {
  t: number;
  node: ProcessId;
  text: string;
  /** Its index in its trace: what the process was handling is the input just before it. */
  at: number;
}

function items(trace: readonly TraceEvent[], steady: ReadonlySet<string>): Item[] {
  const out: Item[] = [];
  const last = new Map<ProcessId, string>();
  for (const [at, e] of trace.entries()) {
    if (e.kind === 'send' && !steady.has(e.type))
      out.push({ t: e.t, node: e.from, text: describeEvent(e, { ids: false }), at });
    else if (e.kind === 'report') {
      const r = e.report;
      const text = `${e.node} ${leads(r) ? 'leads' : r.electing ? 'is electing' : r.coordinator === null ? 'knows no coordinator' : `follows ${r.coordinator}`}`;
      if (last.get(e.node) === text) continue;
      last.set(e.node, text);
      out.push({ t: e.t, node: e.node, text, at });
    } else if (e.kind === 'crash') last.delete(e.node);
  }
  return out;
}

const key = (t: number) => Math.round(t * 1000) / 1000;

function byInstant(list: Item[]): Map<number, Item[]> {
  const m = new Map<number, Item[]>();
  for (const it of list) {
    const k = key(it.t);
    const g = m.get(k);
    if (g) g.push(it);
    else m.set(k, [it]);
  }
  return m;
}

/** The first instant at which the two runs differ, or null when they agree throughout. */
export function firstDivergence(
  reference: readonly TraceEvent[],
  yours: readonly TraceEvent[],
  steady: ReadonlySet<string>,
): Divergence | null {
  const a = byInstant(items(reference, steady));
  const b = byInstant(items(yours, steady));
  const instants = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y);
  for (const t of instants) {
    const ra = (a.get(t) ?? []).map((i) => i.text).sort();
    const rb = (b.get(t) ?? []).map((i) => i.text).sort();
    if (ra.join('\n') === rb.join('\n')) continue;
    const onlyRef = minus(ra, rb);
    const onlyYours = minus(rb, ra);
    const mine = (b.get(t) ?? []).find((i) => onlyYours.includes(i.text));
    const theirs = (a.get(t) ?? []).find((i) => onlyRef.includes(i.text));
    // Hers first: what she did is explained by her own trace; what only the reference did, by the
    // input the reference was handling then (the same input reached her process).
    const first = mine ?? theirs!;
    return {
      t,
      process: first.node,
      event: handling(mine ? yours : reference, first.node, first.at),
      reference: onlyRef,
      yours: onlyYours,
    };
  }
  return null;
}

function minus(xs: string[], ys: string[]): string[] {
  const left = [...ys];
  const out: string[] = [];
  for (const x of xs) {
    const i = left.indexOf(x);
    if (i >= 0) left.splice(i, 1);
    else out.push(x);
  }
  return out;
}

/** The last input `node` took before the trace's event `before`: the step that produced that event. */
function handling(trace: readonly TraceEvent[], node: ProcessId, before: number): string | null {
  for (let i = before - 1; i >= 0; i--) {
    const e = trace[i]!;
    const at = e.kind === 'deliver' ? e.to : 'node' in e ? e.node : null;
    const input = at === node ? describeInput(e) : null;
    if (input !== null) return `${input} (t=${round(e.t)})`;
  }
  return null;
}

const round = (x: number) => Math.round(x * 100) / 100;

export function describeDivergence(d: Divergence): string {
  const list = (xs: string[]) =>
    xs.length === 0
      ? 'nothing'
      : xs.length <= 4
        ? xs.join('; ')
        : `${xs.slice(0, 4).join('; ')}; and ${xs.length - 4} more`;
  return `first divergence from the reference at t=${round(d.t)}, process ${d.process}${d.event ? ` handling ${d.event}` : ''}: the reference: ${list(d.reference)}; yours: ${list(d.yours)}`;
}
