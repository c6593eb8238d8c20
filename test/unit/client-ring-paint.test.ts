import { describe, expect, it } from 'vitest';
import { ringLayout } from '../../client/src/utils/ring-layout.ts';
import {
  fitLabels,
  labelMargin,
  labelModeFor,
  paintCentre,
  paintLabels,
  paintNode,
  type Paint,
} from '../../client/src/utils/ring-paint.ts';
import { processLook, type ProcessLook } from '../../client/src/utils/process-look.ts';
import { STATUS_COLOURS } from '../../client/src/utils/message-style.ts';
import type { ProcessInfo } from '@shared/protocol/frames.ts';
import { whoDisagrees } from '../../client/src/utils/who-disagrees.ts';

/** A Paint that records the text it is asked to draw. */
function recorder() {
  const texts: string[] = [];
  const paint: Paint = {
    fillStyle: '',
    strokeStyle: '',
    lineWidth: 1,
    globalAlpha: 1,
    font: '',
    textAlign: 'left',
    textBaseline: 'middle',
    beginPath() {},
    moveTo() {},
    lineTo() {},
    arc() {},
    closePath() {},
    fill() {},
    stroke() {},
    save() {},
    restore() {},
    setLineDash() {},
    fillText: (t) => void texts.push(t),
    measureText: (t) => ({ width: t.length * 8 }),
  };
  return { paint, texts };
}

const look = (role: string, believes: string): ProcessLook => ({
  shape: 'circle',
  fill: '#fff',
  stroke: '#000',
  dashed: false,
  crossed: false,
  paused: false,
  ring: null,
  halo: null,
  rival: false,
  role,
  leads: false,
  status: 'up',
  kind: 'human',
  believes,
});

describe('ring painting', () => {
  it('label mode follows the room between neighbours', () => {
    expect(labelModeFor(150)).toBe('detailed');
    expect(labelModeFor(80)).toBe('named');
    expect(labelModeFor(10)).toBe('ids');
  });

  it('a roomy ring labels each process with its id, name, role and belief', () => {
    const { paint, texts } = recorder();
    const l = ringLayout([0, 1, 2], 600, 600);
    paintLabels(
      paint,
      l,
      'detailed',
      new Map([
        [0, look('follower', '2')],
        [1, look('follower', '2')],
        [2, look('coordinator', '2')],
      ]),
      (id) => `p${id}`,
      null,
    );
    expect(texts).toEqual([
      '0 p0',
      'follower → 2',
      '1 p1',
      'follower → 2',
      '2 p2',
      'coordinator → 2',
    ]);
  });

  it('a crowded ring labels every few ids and never the last partial stretch next to the first', () => {
    const { paint, texts } = recorder();
    const ids = Array.from({ length: 200 }, (_, i) => i);
    paintLabels(paint, ringLayout(ids, 800, 800), 'ids', new Map(), () => null, null);
    const every = Number(texts[1]);
    expect(every).toBeGreaterThan(1);
    expect(texts.map(Number)).toEqual(Array.from({ length: texts.length }, (_, i) => i * every));
    expect(200 - Number(texts.at(-1))).toBeGreaterThanOrEqual(every);
  });

  it("the centre names the coordinator most believe in, or each partition group's", () => {
    const l = ringLayout([0, 1, 2, 3], 400, 400);
    const one = recorder();
    paintCentre(one.paint, l, {
      beliefs: [
        { coordinator: 3, count: 3 },
        { coordinator: 2, count: 1 },
      ],
      up: 4,
      groups: [[-1, 3]],
    });
    expect(one.texts).toEqual(['coordinator', '3', '3 of 4 up believe it', 'others: 2: 1']);
    // A coordinator that is down is named so (issue 24: the projector showed a crashed 11 as believed).
    const gone = recorder();
    paintCentre(gone.paint, l, {
      beliefs: [{ coordinator: 11, count: 7, down: true }],
      up: 11,
      groups: [[-1, 11]],
    });
    expect(gone.texts).toEqual(['coordinator', '11', 'down: 7 of 11 up still believe it']);
    const split = recorder();
    paintCentre(split.paint, l, {
      beliefs: [
        { coordinator: 1, count: 2 },
        { coordinator: 3, count: 2 },
      ],
      up: 4,
      groups: [
        [0, 1],
        [1, 3],
      ],
    });
    expect(split.texts).toEqual(['coordinator by group', 'group 1: 1', 'group 2: 3']);
  });

  it('a split brain puts a warning above the headline and a warning sign on each rival, not only a colour', () => {
    const l = ringLayout([0, 1, 2, 3, 4, 5, 6, 7], 400, 400);
    const centre = recorder();
    paintCentre(centre.paint, l, {
      beliefs: [
        { coordinator: 3, count: 4 },
        { coordinator: 7, count: 4 },
      ],
      up: 8,
      groups: [
        [0, 3],
        [1, 7],
      ],
      alarm: 'split brain: 3 and 7 lead at once',
    });
    expect(centre.texts[0]).toBe('⚠ split brain: 3 and 7 lead at once');
    const node = recorder();
    paintNode(node.paint, 10, 50, 50, { ...look('coordinator', '3'), rival: true }, false);
    expect(node.texts).toEqual(['!']);
    const calm = recorder();
    paintNode(calm.paint, 10, 50, 50, look('coordinator', '3'), false);
    expect(calm.texts).toEqual([]);
  });

  it('a paused process keeps its role and belief, says "paused" with what it holds, and gets a violet pause sign', () => {
    const p: ProcessInfo = {
      id: 4,
      name: null,
      status: 'up',
      kind: 'bot',
      transport: 'ws',
      report: { role: 'coordinator', coordinator: 4, electing: false },
      group: 1,
      paused: true,
      held: 3,
    };
    const none = whoDisagrees([p]);
    const l = processLook(p, none, 0);
    expect(l).toMatchObject({
      paused: true,
      role: 'coordinator',
      believes: '4',
      status: 'paused (3 held), cut off (group 2)',
      stroke: STATUS_COLOURS.paused,
    });
    expect(processLook({ ...p, paused: undefined, held: undefined }, none, 1)).toMatchObject({
      paused: false,
      status: 'up (group 2)',
    });
    const fills: unknown[] = [];
    const { paint } = recorder();
    paint.fill = () => void fills.push(paint.fillStyle);
    paintNode(paint, 10, 50, 50, l, false);
    expect(fills).toContain(STATUS_COLOURS.paused);
    const calm: unknown[] = [];
    paint.fill = () => void calm.push(paint.fillStyle);
    paintNode(paint, 10, 50, 50, { ...l, paused: false }, false);
    expect(calm).not.toContain(STATUS_COLOURS.paused);
  });

  it('the room kept for labels grows with the names and the discs, and stays bounded', () => {
    expect(labelMargin('detailed', 8, 14, 24)).toBeGreaterThan(labelMargin('detailed', 8, 4, 24));
    expect(labelMargin('ids', 40, 0, 23)).toBeGreaterThan(labelMargin('ids', 40, 0, 5));
    // A 12-character name is cut to its first 12 characters, so longer names need no more room.
    expect(labelMargin('detailed', 8, 40, 24)).toBe(labelMargin('detailed', 8, 12, 24));
    expect(labelMargin('detailed', 8, 40, 24)).toBeLessThanOrEqual(190);
    expect(labelMargin('ids', 200, 0, 3)).toBeGreaterThanOrEqual(36);
  });

  it('a long split-brain warning is set smaller so it stays inside the ring', () => {
    const fonts: [string, string][] = [];
    const { paint } = recorder();
    paint.fillText = function (this: Paint, t: string) {
      fonts.push([t, paint.font]);
    };
    const l = ringLayout(
      Array.from({ length: 25 }, (_, i) => i),
      400,
      400,
    );
    const short = 'split brain: 3 and 7 lead at once';
    const long = `split brain: ${Array.from({ length: 12 }, (_, i) => i).join(' and ')} lead at once`;
    for (const alarm of [short, long])
      paintCentre(paint, l, { beliefs: [{ coordinator: 3, count: 4 }], up: 8, groups: [], alarm });
    const size = (alarm: string) =>
      Number(/(\d+)px/.exec(fonts.find(([t]) => t === `⚠ ${alarm}`)![1])![1]);
    expect(size(long)).toBeLessThan(size(short));
  });

  it('leans the labels on a small canvas so the ring keeps 40% of the room (a 390 px phone)', () => {
    // 1,400 px desktop: the detailed labels fit beside a large ring.
    expect(fitLabels(4, 3, 640).mode).toBe('detailed');
    // A phone's 326 px: detailed labels would leave no ring at all; named ones leave 40%.
    const phone = fitLabels(4, 3, 326);
    expect(326 / 2 - labelMargin('detailed', 4, 3, 24)).toBeLessThan(0);
    expect(phone.mode).toBe('named');
    expect(326 / 2 - phone.margin).toBeGreaterThanOrEqual(0.4 * (326 / 2));
    // Bare ids are the floor, whatever the room.
    expect(fitLabels(4, 12, 120).mode).toBe('ids');
  });
});
