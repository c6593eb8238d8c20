// npm run bench:class [-- --classes K] [--algorithm NAME] [--max-n N]
// Issue 24's property over many seeded classes (shared/coach/class-check.ts): by default the
// issue's 200 classes per algorithm, N from 4 to 40, think 1-6 s, up to 10% of students with one
// mistake. Prints, per algorithm, how many classes held the property, the first violations, and
// the wall time; `npm test` runs a few of the same classes (test/unit/class-sim.test.ts).
import { parseArgs } from 'node:util';
import { ALGORITHM_NAMES, type AlgorithmName } from '@shared/algorithms/algorithm.ts';
import { classViolations, propertySpec } from '@shared/coach/class-check.ts';
import { runClass } from '@shared/coach/class-sim.ts';
import { handleHelp, progressLine, usageError } from '../scripts/cli.ts';

const USAGE = `Usage: npm run bench:class [-- options]

Runs seeded simulated classes playing by hand (npm run class) and checks issue 24's property in
each: agreement after the start and after the coordinator's crash, nobody stuck past 2 x UB,
nobody marked who followed every hint in time, messages within the documents' worst case.

  --classes K        classes per algorithm (default 200)
  --algorithm NAME   one of ${ALGORITHM_NAMES.join(', ')} (default: all)
  --max-n N          the largest class (default 40)
  --help             this text`;

function main(): void {
  const argv = process.argv.slice(2);
  handleHelp(argv, USAGE);
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        classes: { type: 'string', default: '200' },
        algorithm: { type: 'string' },
        'max-n': { type: 'string', default: '40' },
      },
      strict: true,
    }).values;
    if (
      values.algorithm !== undefined &&
      !ALGORITHM_NAMES.includes(values.algorithm as AlgorithmName)
    )
      throw new Error(`--algorithm must be one of ${ALGORITHM_NAMES.join(', ')}`);
    if (!(Number(values.classes) >= 1) || !(Number(values['max-n']) >= 4))
      throw new Error('--classes must be at least 1 and --max-n at least 4');
  } catch (e) {
    usageError('bench:class', USAGE, e);
  }
  const algorithms = values.algorithm ? [values.algorithm as AlgorithmName] : ALGORITHM_NAMES;
  const line = progressLine();
  let failed = false;
  for (const algorithm of algorithms) {
    const started = performance.now();
    const bad: string[] = [];
    const classes = Number(values.classes);
    for (let i = 0; i < classes; i++) {
      const spec = propertySpec(algorithm, i, Number(values['max-n']));
      line.step(`${algorithm}: class ${i + 1}/${classes} (${spec.students} students)`);
      const v = classViolations(runClass(spec));
      if (v.length)
        bad.push(
          `  class ${i} (--students ${spec.students} --think ${spec.think[0]}-${spec.think[1]}s --mistakes ${spec.mistakes} --seed ${spec.seed}): ${v.join('; ')}`,
        );
    }
    line.done();
    failed ||= bad.length > 0;
    console.log(
      `${algorithm}: ${classes - bad.length} of ${classes} classes hold the property, ${((performance.now() - started) / 1000).toFixed(1)} s wall time`,
    );
    for (const b of bad.slice(0, 5)) console.log(b);
  }
  process.exit(failed ? 1 : 0);
}

main();
