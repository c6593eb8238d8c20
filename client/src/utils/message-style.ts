// Message colours and shapes. Okabe-Ito's palette stays distinguishable under the common colour
// blindnesses; every type also gets its own shape and its name in the legend, so colour is never
// the only cue. Failure-detector chatter (heartbeats, polls) is drawn in neutral grey: it is
// background noise next to the election messages a class is watching.

export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

/**
 * Election-message colours in the order types are assigned. Vermillion is kept for crashes and
 * drops, so a dropped message never looks like a message type; yellow comes last (weak on white).
 */
const COLOURS = [
  OKABE_ITO.blue,
  OKABE_ITO.orange,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.skyBlue,
  OKABE_ITO.black,
  OKABE_ITO.yellow,
] as const;

export const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'star', 'cross'] as const;
export type Shape = (typeof SHAPES)[number];

export const NEUTRAL = '#7a7a7a';
/** Failure-detector and keep-alive traffic: heartbeats of every kind, polls and their answers. */
export function isBackgroundType(type: string): boolean {
  return type.includes('HEARTBEAT') || type === 'PING' || type === 'PONG' || type === 'WORK_STATUS';
}
/** The work schedule's message types (they carry no election: the tracker and the stats leave them out). */
export const isWorkMessageType = (type: string): boolean => Object.hasOwn(WORK_LOOK, type);
/** Not an election message: background chatter, or the work schedule's. */
export const isOutsideElection = (type: string): boolean =>
  isBackgroundType(type) || isWorkMessageType(type);
const BACKGROUND_ORDER = ['HEARTBEAT', 'PING', 'PONG'];

export interface MessageStyle {
  type: string;
  color: string;
  shape: Shape;
  /** Heartbeats and polls: drawn smaller and grey, hideable. */
  background: boolean;
  /** 003's work schedule: a task order, a result, or the office's bookkeeping (drawn thicker). */
  work?: 'task' | 'result' | 'office';
  /** The marker is drawn as an outline (a task: work still to do), not filled. */
  hollow?: boolean;
}

/**
 * The work schedule's messages (shared/work/work-messages.ts) look the same under every
 * algorithm, apart from its election messages: colours outside the election palette (brown
 * orders, dark violet results), a thicker line, and an outlined square for a task against a filled
 * diamond for a result, so neither rests on colour. The status beat is background like a heartbeat.
 */
export const WORK_COLOURS = { task: '#8c510a', result: '#5e3c99', office: '#3b3b3b' } as const;
const WORK_LOOK: Record<string, Omit<MessageStyle, 'type'>> = {
  WORK_ASSIGN: {
    color: WORK_COLOURS.task,
    shape: 'square',
    background: false,
    work: 'task',
    hollow: true,
  },
  WORK_RESULT: { color: WORK_COLOURS.result, shape: 'diamond', background: false, work: 'result' },
  WORK_STORE: {
    color: WORK_COLOURS.result,
    shape: 'diamond',
    background: false,
    work: 'result',
    hollow: true,
  },
  WORK_HOLD: {
    color: WORK_COLOURS.office,
    shape: 'circle',
    background: false,
    work: 'office',
    hollow: true,
  },
  WORK_HELD: { color: WORK_COLOURS.office, shape: 'circle', background: false, work: 'office' },
  WORK_REFUSED: { color: WORK_COLOURS.office, shape: 'cross', background: false, work: 'office' },
  WORK_STATUS: { color: NEUTRAL, shape: 'triangle', background: true },
};

/**
 * The style of a message type. `known` is the algorithm's `messageTypes` list: a type's place in
 * it picks its colour and shape, so a given algorithm always looks the same. Unknown types get a
 * slot from a hash of their name, past the known ones.
 */
export function messageStyle(type: string, known: readonly string[] = []): MessageStyle {
  const w = Object.hasOwn(WORK_LOOK, type) ? WORK_LOOK[type] : undefined;
  if (w) return { type, ...w };
  const background = isBackgroundType(type);
  const foreground = known.filter((t) => !isBackgroundType(t) && !Object.hasOwn(WORK_LOOK, t));
  let slot = foreground.indexOf(type);
  if (slot < 0) slot = foreground.length + (hash(type) % 11);
  if (background) {
    const bslot = Math.max(0, BACKGROUND_ORDER.indexOf(type));
    return { type, color: NEUTRAL, shape: SHAPES[(bslot + 1) % SHAPES.length]!, background };
  }
  return {
    type,
    color: COLOURS[slot % COLOURS.length]!,
    shape: SHAPES[slot % SHAPES.length]!,
    background,
  };
}

/** Styles for a legend: every known type, then any seen type not known, each once. */
export function legend(known: readonly string[], seen: Iterable<string> = []): MessageStyle[] {
  const types = [...known];
  for (const t of seen) if (!types.includes(t)) types.push(t);
  return types.map((t) => messageStyle(t, known));
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** Process status colours (also shown by outline style and text). */
export const STATUS_COLOURS = {
  up: OKABE_ITO.bluishGreen,
  crashed: OKABE_ITO.vermillion,
  /** Paused by the instructor (SIGSTOP): a dark violet, apart from every role fill and the halo's purple. */
  paused: '#5b4b8a',
  absent: '#b5b5b5',
  disagrees: OKABE_ITO.orange,
  coordinator: OKABE_ITO.blue,
} as const;

/** Partition group fills: distinct hues, then repeat (groups also show their number). */
export const GROUP_COLOURS = [
  OKABE_ITO.skyBlue,
  OKABE_ITO.orange,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.yellow,
  OKABE_ITO.blue,
] as const;

export function groupColour(group: number | null): string | null {
  return group === null ? null : GROUP_COLOURS[group % GROUP_COLOURS.length]!;
}
