/**
 * The order the run starts its files in: the longest first, so that on two workers the run does not end with
 * one long file running while the other worker has nothing left to do. vitest's own order puts the longest
 * first only from the durations a previous run left in its cache, which a fresh clone (CI) has not got; it then
 * starts the largest files first, and some of the longest files are short ones (a synthesis checked by
 * cfn-guard, megabyte transactions). {@link SLOW_FILES} names the files known to be long, with their seconds in
 * a run of the whole suite on a busy two-core machine (only their order matters); every other file follows in
 * vitest's own order. Groups (`sequence.groupOrder`) still run one after another, and the unit tier, whose files
 * share their worker (`isolate: false`), still starts after the isolated files, as vitest requires.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each long file took in a run of the whole suite (`npx vitest run --reporter=json`): refresh as files grow. */
export const SLOW_FILES: ReadonlyMap<string, number> = new Map([
  ['test/integration/reject-limits.test.ts', 198],
  ['test/infra/control-tower.test.ts', 120],
  ['test/e2e/cli.test.ts', 108],
  ['test/rehearsal/operator.test.ts', 94],
  ['test/docs/examples.test.ts', 91],
  ['test/e2e/start.test.ts', 70],
  ['test/integration/create-job.test.ts', 60],
  ['test/e2e/start-supervision.test.ts', 50],
  ['test/e2e/invoke.test.ts', 47],
  ['test/integration/import.test.ts', 44],
  ['test/unit/openapi-lint.test.ts', 39],
  ['test/unit/search/opensearch-bulk-split.test.ts', 33],
  ['test/infra/stack-config.test.ts', 31],
  ['test/infra/bundling.test.ts', 30],
  ['test/e2e/reject.test.ts', 30],
  ['test/reliability/dynamodb-local-supervision.test.ts', 30],
  ['test/integration/reject.test.ts', 30],
  ['test/integration/embedded-same-millisecond.test.ts', 24],
  ['test/integration/pipeline.test.ts', 24],
  ['test/integration/delivery-atomicity.test.ts', 24],
  ['test/reliability/authorization.test.ts', 23],
  ['test/unit/search/embedded-order.test.ts', 23],
  ['test/e2e/docs-browser.test.ts', 21],
  ['test/unit/images/render.test.ts', 18],
  ['test/integration/tables.test.ts', 15],
  ['test/rehearsal/iam.test.ts', 15],
  ['test/unit/search/opensearch-stories.test.ts', 15],
  ['test/reliability/pipeline-chaos.test.ts', 14],
  ['test/contract/embedded.test.ts', 13],
]);

const slowness = (specification: TestSpecification): number =>
  SLOW_FILES.get(specification.moduleId.slice(specification.project.config.root.length + 1)) ?? 0;

export class LongestFirstSequencer extends BaseSequencer {
  public override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const position = new Map(ordered.map((file, index) => [file, index]));
    return [...ordered].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        Number(!a.project.config.isolate) - Number(!b.project.config.isolate) ||
        slowness(b) - slowness(a) ||
        position.get(a)! - position.get(b)!,
    );
  }
}
