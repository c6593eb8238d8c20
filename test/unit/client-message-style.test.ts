import { describe, expect, it } from 'vitest';
import { bully } from '@shared/algorithms/bully.ts';
import { raft } from '@shared/algorithms/raft.ts';
import {
  OKABE_ITO,
  isBackgroundType,
  isOutsideElection,
  legend,
  messageStyle,
} from '../../client/src/utils/message-style.ts';

const palette = new Set<string>(Object.values(OKABE_ITO));

describe('message style', () => {
  it("an algorithm's election messages each get their own Okabe-Ito colour and their own shape", () => {
    for (const algorithm of [bully, raft]) {
      const styles = algorithm.messageTypes
        .filter((t) => !isBackgroundType(t))
        .map((t) => messageStyle(t, algorithm.messageTypes));
      expect(new Set(styles.map((s) => s.color)).size).toBe(styles.length);
      expect(new Set(styles.map((s) => s.shape)).size).toBe(styles.length);
      for (const s of styles) expect(palette.has(s.color)).toBe(true);
    }
  });

  it('heartbeats and polls are background: grey, and never share a shape with each other', () => {
    const bg = ['HEARTBEAT', 'PING', 'PONG'].map((t) => messageStyle(t, bully.messageTypes));
    for (const s of bg) expect(s.background).toBe(true);
    expect(new Set(bg.map((s) => s.color)).size).toBe(1);
    expect(new Set(bg.map((s) => s.shape)).size).toBe(3);
    expect(isBackgroundType('MASTER_HEARTBEAT')).toBe(true);
    expect(isBackgroundType('ELECTION')).toBe(false);
  });

  it('the same type always looks the same, known or not', () => {
    expect(messageStyle('WEIRD', [])).toEqual(messageStyle('WEIRD', []));
    expect(messageStyle('OK', bully.messageTypes)).toEqual(messageStyle('OK', bully.messageTypes));
  });

  it('the legend lists known types first, then types seen in the trace, once each', () => {
    expect(legend(['A', 'B'], ['B', 'C', 'C']).map((s) => s.type)).toEqual(['A', 'B', 'C']);
  });
});

describe('the work schedule’s messages (issue 27)', () => {
  it('task orders and results have their own look under every algorithm, apart from the election palette, not resting on colour', () => {
    const election = new Set<string>();
    for (const algorithm of [bully, raft])
      for (const t of algorithm.messageTypes)
        election.add(messageStyle(t, algorithm.messageTypes).color);
    const task = messageStyle('WORK_ASSIGN', bully.messageTypes);
    const result = messageStyle('WORK_RESULT', raft.messageTypes);
    expect(task).toEqual(messageStyle('WORK_ASSIGN', raft.messageTypes));
    expect([task.work, task.hollow, result.work, result.hollow ?? false]).toEqual([
      'task',
      true,
      'result',
      false,
    ]);
    expect(task.shape).not.toBe(result.shape);
    expect(
      election.has(task.color) || election.has(result.color) || task.color === result.color,
    ).toBe(false);
    expect(messageStyle('WORK_STORE').work).toBe('result');
  });

  it('the status beat is background; work messages are outside the election (no window opens on them), yet drawn', () => {
    expect(messageStyle('WORK_STATUS').background).toBe(true);
    expect([
      isOutsideElection('WORK_ASSIGN'),
      isOutsideElection('WORK_HOLD'),
      isOutsideElection('OK'),
    ]).toEqual([true, true, false]);
    expect(isBackgroundType('WORK_ASSIGN')).toBe(false);
    // Election types keep their slots when the algorithm's list carries the work types too (withWork).
    expect(messageStyle('OK', [...bully.messageTypes, 'WORK_ASSIGN'])).toEqual(
      messageStyle('OK', bully.messageTypes),
    );
  });
});
