import { describe, expect, it } from 'vitest';
import { FlightBoard, dropPoint } from '../../client/src/utils/flight-board.ts';

describe('flight board', () => {
  it('a message flies from 0 to 1 over the visual duration and is then forgotten', () => {
    const b = new FlightBoard({ duration: 100 });
    b.send(1, 0, 1, 'ELECTION', 1000);
    expect(b.frame(1050).moving[0]!.f).toBeCloseTo(0.5);
    expect(b.frame(1100).moving).toHaveLength(0);
    expect(b.size).toBe(0);
  });

  it('a dropped message stops at its drop point and its mark lingers, then fades out', () => {
    const b = new FlightBoard({ duration: 100, dropLinger: 500 });
    b.send(1, 0, 1, 'OK', 0);
    b.drop(1, 'loss', 10);
    expect(b.frame(40).moving).toHaveLength(1);
    const f = b.frame(80);
    expect(f.moving).toHaveLength(0);
    expect(f.drops[0]).toMatchObject({ f: 0.5 });
    expect(f.drops[0]!.age).toBeCloseTo(30);
    expect(b.frame(600).drops).toHaveLength(0);
    expect(b.size).toBe(0);
  });

  it('drops at a crashed receiver show next to the receiver, at a crashed sender next to the sender', () => {
    expect(dropPoint('receiver-crashed')).toBeGreaterThan(0.8);
    expect(dropPoint('sender-crashed')).toBeLessThan(0.2);
    expect(dropPoint('partition')).toBe(0.5);
  });

  it('past the limit messages are sampled out and counted, so a frame never draws more than the limit', () => {
    const b = new FlightBoard({ maxFlights: 100, duration: 1000 });
    for (let i = 0; i < 5000; i++) b.send(i, i % 7, (i + 1) % 7, 'ELECTION', 0);
    expect(b.frame(10).moving).toHaveLength(100);
    expect(b.takeCounts()).toEqual({ shown: 100, sampled: 4900 });
    expect(b.takeCounts()).toEqual({ shown: 0, sampled: 0 });
  });
});
