// What the coach offers her next, as the tab lists it: the reference's sends she owes (each with
// a button), declaring herself when the reference would, believing whom the reference believes.
// Pure, from the runner's view; the tab draws it and the class simulator (class-sim.ts) follows it.
import type { ProcessId } from '../algorithms/algorithm.ts';
import type { Offer } from './hand-kit.ts';
import type { HandView } from './hand-runner.ts';

export interface Hint {
  /** What the tab says. */
  label: string;
  /** What its button does; null: nothing to click. */
  offer: Offer | null;
  /** Until when it counts, on her clock (ms); null: no deadline. */
  due: number | null;
}

/** The hints in the order the tab lists them. */
export function hints(view: HandView, self: ProcessId): Hint[] {
  const out: Hint[] = [];
  const c = view.coach;
  if (c.wouldDeclare && view.report.coordinator !== self) {
    const declare = view.moves.find((m) => m.key === 'declare');
    if (declare) out.push({ label: 'believe it is the coordinator itself', offer: declare, due: null });
  }
  for (const s of c.suggestions) {
    const offer: Offer = { key: `hint-${s.message.type}-${s.to}`, label: `followed the hint: ${s.message.type} to ${s.to}`, steps: [{ kind: 'send', to: s.to, message: s.message }] };
    out.push({ label: `send ${s.message.type} to ${s.to}`, offer, due: s.due });
  }
  const believe = c.report && !c.report.electing ? c.report.coordinator : null;
  if (believe !== null && believe !== self && view.report.coordinator !== believe) {
    out.push({ label: `It believes: ${believe}`, offer: { key: `believe-${believe}`, label: `Believe ${believe}`, steps: [{ kind: 'believe', coordinator: believe }] }, due: null });
  }
  return out;
}
