/**
 * The order the run starts its files in: the longest first, so that on two workers the run does not end with
 * one long file running while the other worker has nothing left to do. vitest's own order puts the longest
 * first only from the durations a previous run left in its cache, which a fresh clone (CI) has not got; it then
 * starts the largest files first, and some of the longest files are short ones (a synthesis checked by
 * cfn-guard, megabyte transactions). {@link SLOW_FILES} names the files known to be long, with their seconds in
 * a run of the whole suite on an idle two-core machine (only their order matters); every other file follows in
 * vitest's own order. Groups (`sequence.groupOrder`) still run one after another, and files that share their
 * worker (`isolate: false`: the unit and integration tiers) still start after any isolated file of their group, as
 * vitest requires.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each long file took in a run of the whole suite on an idle machine (`npx vitest run --reporter=json`): refresh as files grow. */
export const SLOW_FILES: ReadonlyMap<string, number> = new Map([
  ['test/rehearsal/operator.test.ts', 110],
  ['test/e2e/cli.test.ts', 65],
  ['test/docs/examples.test.ts', 55],
  ['test/e2e/start.test.ts', 55],
  ['test/infra/control-tower.test.ts', 45],
  ['test/integration/reject-limits.test.ts', 40],
  ['test/infra/bundling.test.ts', 38],
  ['test/e2e/start-supervision.test.ts', 30],
  ['test/integration/delivery-atomicity.test.ts', 26],
  ['test/rehearsal/iam.test.ts', 23],
  ['test/e2e/docs-browser.test.ts', 20],
  ['test/integration/pipeline.test.ts', 18],
  ['test/reliability/pipeline-chaos.test.ts', 15],
  ['test/e2e/client-package.test.ts', 14],
  ['test/integration/create-job.test.ts', 13],
  ['test/e2e/invoke.test.ts', 13],
  ['test/reliability/dynamodb-local-supervision.test.ts', 11],
  ['test/unit/openapi-lint.test.ts', 11],
  ['test/integration/poller.test.ts', 10],
  ['test/e2e/events.test.ts', 9],
  ['test/reliability/authorization.test.ts', 9],
  ['test/unit/search/opensearch-bulk-split.test.ts', 8],
  ['test/integration/import.test.ts', 8],
  ['test/e2e/reject.test.ts', 7],
  ['test/integration/reject.test.ts', 7],
  ['test/integration/embedded-same-millisecond.test.ts', 5],
  ['test/unit/search/embedded-order.test.ts', 5],
  ['test/unit/images/render.test.ts', 5],
  ['test/integration/tables.test.ts', 5],
  ['test/unit/search/opensearch-stories.test.ts', 4],
  ['test/contract/embedded.test.ts', 4],
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
