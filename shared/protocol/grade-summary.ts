// What a process tells the relay about its latest grade (a student grading her module in the
// tab, docs/STUDENT_MODULES.md): the verdict, the count, the first failing case and, when it is
// small enough, that case's run as a trace file the instructor opens in replay. The relay keeps
// the latest per process for the class board, as a claim (it does not re-run her module); a
// summary that contradicts itself is refused here, at the schema.
import { z } from 'zod';
import { AlgorithmNameSchema } from './lab-config.ts';

/** What the process's tab runs: the lab's algorithm (`auto`), her hand (`hand`), or her own module (`code`). */
export const ProcessModeSchema = z.enum(['auto', 'hand', 'code']);
export type ProcessMode = z.infer<typeof ProcessModeSchema>;

export const GradeSummarySchema = z
  .object({
    algorithm: AlgorithmNameSchema,
    pass: z.boolean(),
    passed: z.int().min(0).max(200),
    total: z.int().min(0).max(200),
    /** The first failing case; null when every case passed. */
    failing: z
      .object({
        id: z.string().min(1).max(40),
        title: z.string().max(200),
        reason: z.string().max(400),
      })
      .strict()
      .nullable(),
  })
  .strict()
  // A verdict its own numbers contradict ("200 of 1", a pass beside a failing case) is refused.
  .superRefine((g, ctx) => {
    if (g.passed > g.total)
      ctx.addIssue({ code: 'custom', path: ['passed'], message: 'passed cannot exceed total' });
    if (g.pass && g.passed !== g.total)
      ctx.addIssue({
        code: 'custom',
        path: ['pass'],
        message: 'pass is true only when every case passed (passed = total)',
      });
    if (g.pass && g.failing !== null)
      ctx.addIssue({
        code: 'custom',
        path: ['failing'],
        message: 'pass is true only when no case failed (failing is null)',
      });
  });
export type GradeSummary = z.infer<typeof GradeSummarySchema>;

/** A failing run carried in a grade frame: at most this many characters of trace file (a frame is 16 KB at most). */
export const MAX_GRADE_TRACE_CHARS = 12_000;
