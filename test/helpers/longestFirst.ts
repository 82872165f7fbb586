/**
 * The order files start in. Vitest starts the files it has no timings for by size, largest first,
 * and a clean clone has none: the simulation, a small file over a large world.ts, started last and
 * ran alone for its 94 s at the end of the first group. The files listed here start first in their
 * group, in this order (their times in a clean-clone run on 2 cores); the rest keep Vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'test/simulation/simulation.test.ts', // 94 s
  'test/store/contract.postgres.test.ts', // 62 s
  'test/integration/routines.fire.test.ts', // 53 s
  'test/integration/databaseLock.test.ts', // 51 s
  'test/browser/accessibility.test.ts', // 50 s
  'test/integration/cli.test.ts', // 49 s
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST.findIndex((path) => spec.moduleId.endsWith(path));
      return index < 0 ? LONGEST.length : index;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder ?? 0;
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => group(a.spec) - group(b.spec) || rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
