// What the coach offers her next, most urgent first, each with its button: the sends the
// reference owes now, one button per kind however many are owed ("Answer OK to all 15": each
// still its own message on the wire); declaring herself or believing whom the reference believes
// when her tab says otherwise; and when nothing is owed, a plain line saying so. Pure, from the
// runner's view: the tab draws it and the class simulator (class-sim.ts) follows it.
//
// Late sends the reference still waits on (coach.ts `owed`) stay offered: sending one is marked
// once, as late, and lets the reference go on; never sending it would leave her with no way on.
import type { Message, ProcessId } from '../algorithms/algorithm.ts';
import type { HandStep, Offer } from './hand-kit.ts';
import type { HandView } from './hand-runner.ts';

interface Hint {
  /** What the tab says. */
  label: string;
  /** What its button does; null: nothing to click. */
  offer: Offer | null;
  /** Until when it counts, on her clock (ms); null: no deadline. A past one: late, still worth doing. */
  due: number | null;
}

/** The work schedule's sends in the words of 003 (each still the message named on the wire). */
const WORDS: Record<string, string> = {
  WORK_HOLD: 'Take office: ask what they hold (WORK_HOLD) to',
  WORK_ASSIGN: 'Hand the next task (WORK_ASSIGN) to',
  WORK_STORE: 'Pass the result to the analyser (WORK_STORE)',
  WORK_RESULT: 'Send the result (WORK_RESULT) to',
  WORK_REFUSED: 'Refuse the stale order (WORK_REFUSED) of',
};

type Owed = { to: ProcessId; message: Message; due: number };

/** The hints, most urgent (earliest deadline) first; never empty. */
export function hints(view: HandView, self: ProcessId): Hint[] {
  const c = view.coach;
  if (c.broken)
    return [
      {
        label: 'The coach stopped: the reference failed on what you received.',
        offer: null,
        due: null,
      },
    ];
  const groups = new Map<string, Owed[]>();
  for (const s of [...c.owed, ...c.suggestions])
    groups.set(s.message.type, [...(groups.get(s.message.type) ?? []), s]);
  // The reference holds itself coordinator and her tab does not: declare (with its COORDINATORs, one click).
  const believes = c.report && !c.report.electing ? c.report.coordinator : null;
  const mine = view.report;
  const reconcile = believes !== null && (mine.coordinator !== believes || mine.electing);
  const declare = reconcile && believes === self;
  const out = [...groups].map(([type, owed]) => sendHint(view, type, owed, declare));
  if (reconcile && !(declare && groups.has('COORDINATOR'))) {
    const step: HandStep = declare
      ? { kind: 'declare' }
      : { kind: 'believe', coordinator: believes };
    const label = declare ? 'Declare myself coordinator' : `Believe ${believes} is coordinator`;
    const why = mine.electing ? ' (your tab says you are electing; the election is over)' : '';
    out.push({
      label: `${label}${why}`,
      offer: { key: declare ? 'hint-declare' : `hint-believe-${believes}`, label, steps: [step] },
      due: null,
    });
  }
  // 003's work schedule: the reference has taken the task offered to her; its time runs from her accepting.
  const accept = view.work?.offers.find((o) => o.key === 'work-accept');
  if (c.wouldAccept !== null && accept)
    out.push({
      label: `${accept.label} (its time starts when you accept)`,
      offer: accept,
      due: null,
    });
  out.sort((a, b) => (a.due ?? Infinity) - (b.due ?? Infinity));
  withAcks(view, out);
  return out.length ? out : idleHints(view, self);
}

/** One button for every send of one type the reference owes (with her Compute or her declaring first). */
function sendHint(view: HandView, type: string, owed: Owed[], declare: boolean): Hint {
  const sends: HandStep[] = owed.map((s) => ({ kind: 'send', to: s.to, message: s.message }));
  const compute = type === 'WORK_RESULT' ? computeFirst(view) : null;
  if (compute?.waiting)
    // Its time is not over on her clock: nothing to click yet (the result goes after Compute).
    return { label: `${compute.label} first: its time is not over`, offer: null, due: null };
  // The result hint carries her Compute click: it never sends a result she has not computed.
  const steps: HandStep[] = compute ? [{ kind: 'compute' }, ...sends] : sends;
  const withDeclare = declare && type === 'COORDINATOR';
  // Several of one kind to one id (results passed to the analyser): the id once, the count after.
  const to = [...new Set(owed.map((s) => s.to))];
  const many = owed.length > to.length ? ` (${owed.length} messages)` : '';
  const what = `${WORDS[type] ?? (type === 'OK' ? 'Answer OK to' : `Send ${type} to`)} ${to.length > 1 ? `all ${to.length} (${to.join(', ')})` : to[0]}${many}`;
  const label = withDeclare
    ? `Declare myself coordinator: ${what}`
    : compute
      ? `${compute.label}, then: ${what}`
      : what;
  return {
    label,
    offer: {
      key: `hint-${type}`,
      label,
      steps: withDeclare ? [{ kind: 'declare' }, ...steps] : steps,
    },
    due: Math.min(...owed.map((s) => s.due)),
  };
}

/**
 * A ring hop she received is acknowledged (plumbing the coach does not judge, but the sender
 * takes her for dead without it): with the first hint, or alone.
 */
function withAcks(view: HandView, out: Hint[]): void {
  const acks = view.queue
    .filter((q) => !q.done)
    .flatMap((q) =>
      (q.offers[0]?.steps ?? []).filter((s) => s.kind === 'send' && s.message.type === 'ACK'),
    );
  if (!acks.length) return;
  const first = out[0];
  const to = acks.map((s) => (s.kind === 'send' ? s.to : null)).join(', ');
  if (first?.offer)
    out[0] = { ...first, offer: { ...first.offer, steps: [...acks, ...first.offer.steps] } };
  else
    out.unshift({
      label: `Acknowledge the ring messages waiting (ACK to ${to})`,
      offer: { key: 'hint-ack', label: `ACK to ${to}`, steps: acks },
      due: null,
    });
}

/** Nothing owed: a plain line saying what she waits for. */
function idleHints(view: HandView, self: ProcessId): Hint[] {
  const c = view.coach;
  if (c.report?.electing)
    return [
      {
        label:
          'Nothing to do now: wait for the answers to your election (the reference waits too).',
        offer: null,
        due: null,
      },
    ];
  const x = c.report?.coordinator ?? null;
  return [
    {
      label:
        x === null
          ? 'Nothing to do now.'
          : x === self
            ? 'Nothing to do: you are the coordinator.'
            : `Nothing to do: you follow ${x}.`,
      offer: null,
      due: null,
    },
  ];
}

/** Her Compute button when she runs a task (the result hint goes through it), and whether its time is still running. */
function computeFirst(view: HandView): { label: string; waiting: boolean } | null {
  const c = view.work?.offers.find((o) => o.key === 'work-compute');
  if (!c) return null;
  return { label: c.label, waiting: c.readyAt !== undefined && c.readyAt > view.now };
}
