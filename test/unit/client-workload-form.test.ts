// The instructor's workload form (client/src/utils/workload-form.ts): what it sends as the lab's
// `workload` in PUT /api/labs/:lab, and what it refuses before asking the relay.
import { describe, expect, it } from 'vitest';
import { WorkloadSchema } from '@shared/protocol/lab-config.ts';
import { fieldsOf, workloadOf } from '../../client/src/utils/workload-form.ts';

const ids = [0, 1, 2, 3, 4];

describe('the workload form', () => {
  it("a lab's workload comes back unchanged through the form", () => {
    const w = {
      tasks: 30,
      size: 500,
      taskMs: 250,
      sharing: 'static' as const,
      fencing: false,
      slow: [
        { id: 2, factor: 4 },
        { id: 4, factor: 0.5 },
      ],
    };
    const f = fieldsOf(w);
    expect(f).toMatchObject({ on: true, slow: '2:4, 4:0.5' });
    expect(workloadOf(f, ids)).toEqual({ ok: true, workload: w });
  });

  it('off sends null (the election alone); a lab without a workload shows the defaults, off', () => {
    const f = fieldsOf(undefined);
    expect(f).toMatchObject({ on: false, tasks: 12, sharing: 'dynamic', fencing: true, slow: '' });
    expect(workloadOf(f, ids)).toEqual({ ok: true, workload: null });
    const on = workloadOf({ ...f, on: true }, ids);
    expect(on.ok && WorkloadSchema.parse(on.workload)).toBeTruthy();
  });

  it('refuses slow factors that are not ID:FACTOR, name an unknown id, repeat one, or fall outside 0.1 … 100', () => {
    const f = { ...fieldsOf(undefined), on: true };
    expect(workloadOf({ ...f, slow: '3x' }, ids)).toMatchObject({
      ok: false,
      error: expect.stringContaining('not ID:FACTOR'),
    });
    expect(workloadOf({ ...f, slow: '9:2' }, ids)).toMatchObject({
      ok: false,
      error: expect.stringContaining("9 is not one of the lab's ids"),
    });
    expect(workloadOf({ ...f, slow: '1:2, 1:3' }, ids)).toMatchObject({
      ok: false,
      error: expect.stringContaining('given twice'),
    });
    expect(workloadOf({ ...f, slow: '1:200' }, ids)).toMatchObject({
      ok: false,
      error: expect.stringContaining('outside'),
    });
    expect(workloadOf({ ...f, slow: ' 1 : 3 ,' }, ids)).toEqual({
      ok: true,
      workload: expect.objectContaining({ slow: [{ id: 1, factor: 3 }] }),
    });
  });

  it('refuses a job the relay would refuse, in words', () => {
    const f = { ...fieldsOf(undefined), on: true };
    expect(workloadOf({ ...f, tasks: 0 }, ids)).toEqual({ ok: false, error: 'Tasks: 1 … 20000' });
    expect(workloadOf({ ...f, size: 5000 }, ids)).toEqual({
      ok: false,
      error: 'Task size: 1 … 1000 numbers',
    });
  });
});
