/**
 * Jobs through the API, read side and review (docs/contract.md §6a): handler latency of `GET /jobs/{id}` (one
 * GetItem), a page of 50 files (every file, and one review state) and `POST /accept` beside `POST /reject`,
 * each through the deployed handler module with its whole middy chain and a warm authentication cache, on
 * DynamoDB Local holding the population's jobs: in the quick run 10,000 jobs with their files; in the full run the
 * job items of the search benchmark's 1.1M jobs (see {@link POPULATIONS} for why without their files).
 *
 *   npx tsx bench/suites/jobs-read.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Job } from '../../functions/jobs/model/model';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { jobKeys } from '../../functions/tables';
import { toJobItem } from '../../functions/jobs/store/items';
import { unreviewedFile } from '../../functions/jobs/model/model';
import { batchWrite, issueTokens, itemsOf, startBenchDynamo } from '../lib/dynamo';
import { generateJob, type Population, totalJobs } from '../lib/generator';
import { histogramOf, type Figure } from '../lib/report';
import { percentile, round } from '../lib/stats';
import { machine } from '../lib/machine';
import { runSuite } from '../lib/suite';

/**
 * The jobs loaded per mode: the search benchmark's 1.1M in a full run; 10,000 in a quick one. The quick run loads
 * each job's items, its files included. The full run loads each job's job item only — every item
 * `GET /jobs/{id}` can read, with the file count and review counts of its files — and the review jobs' files:
 * DynamoDB Local in memory keeps about 3 KB per item, so the population's 6.6M items (about 5.5M of them files)
 * would take about 20 GB, more than a 24 GiB machine has beside the rest of a run. A page of files reads its own
 * job's partition (one Query of its file keys, filtered to the state for a page of one state), never another job's
 * files.
 */
const POPULATIONS: Record<'full' | 'quick', Population & { files: boolean }> = {
  full: { jobs: 1_000_000, accounts: 1_000, largeAccountJobs: 100_000, files: false },
  quick: { jobs: 9_000, accounts: 100, largeAccountJobs: 1_000, files: true },
};
/** Timed calls per read: the p99 of 1,000 is the 10th slowest, not the 3rd of 300 (one pause of the machine). */
const RUNS = { full: 1_000, quick: 1_000 };
/** Timed calls per review (each a file of its own, on the review jobs). */
const REVIEW_RUNS = { full: 1_000, quick: 300 };
/** Untimed calls of each case before its timed ones. */
const WARMUP = 30;
/**
 * Rounds of every read, interleaved, before any case is timed. DynamoDB Local's JVM compiles a request's hot
 * path only after thousands of calls, and Node's JIT the handler's after hundreds: 30 calls of a case alone left
 * the first cases timing compiles, each case at a different stage of them. Reads change nothing, so they warm up
 * together; the reviews (each call a new file) keep their own warm-up.
 */
const WARM_ROUNDS = 300;
const TARGET_P99_MS = 10;
/** What each read sends to DynamoDB (after authentication, which the warm cache skips). */
const REQUESTS: Record<string, string> = {
  'get-job': 'one request',
  'files-page': 'one Query beside one GetItem, in one round',
  'files-page-pending': 'one Query (filtered to the state) beside one GetItem, in one round',
};
/** The jobs in review the review actions work on: an account of their own, many files each. */
const REVIEW_ACCOUNT = 990_001;
const REVIEW_FILES = 100;

const reviewJob = (id: number): Job => ({
  ...generateJob(POPULATIONS.quick, 1),
  id,
  accountId: REVIEW_ACCOUNT,
  status: 'CJ_REVIEWING',
  deliveredDate: '2025-01-02T10:00:00.000Z',
  files: Array.from({ length: REVIEW_FILES }, (_, index) =>
    unreviewedFile({ id: id * 1_000 + index + 1, fileName: `review_${index + 1}.jpg` }),
  ),
});

await runSuite('jobs-read', 'Reading jobs and reviewing files', async ({ mode, log }) => {
  const population = POPULATIONS[mode];
  const runs = RUNS[mode];
  const reviewRuns = REVIEW_RUNS[mode];
  const dynamo = await startBenchDynamo();
  try {
    Object.assign(process.env, dynamo.env, {
      SEARCH_ENGINE: 'embedded',
      SEARCH_DB_PATH: ':memory:',
      CURSOR_SIGNING_KEY: 'b'.repeat(64),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    const total = totalJobs(population);
    log(`loading ${total.toLocaleString('en-US')} jobs${population.files ? '' : ' (job items only)'}`);
    const started = performance.now();
    for (let first = 1; first <= total; first += 5_000) {
      const items = [];
      for (let id = first; id < Math.min(first + 5_000, total + 1); id++) {
        const job = generateJob(population, id);
        items.push(...(population.files ? itemsOf(job) : [toJobItem(job, 1)]));
      }
      await batchWrite(dynamo.documents, dynamo.jobsTable, items);
    }
    const reviewJobs = Array.from({ length: Math.ceil((reviewRuns + WARMUP) / REVIEW_FILES) * 2 }, (_, index) =>
      reviewJob(total + 1 + index),
    );
    await batchWrite(
      dynamo.documents,
      dynamo.jobsTable,
      reviewJobs.flatMap((job) => itemsOf(job)),
    );
    const loadSeconds = Math.round((performance.now() - started) / 1000);
    log(`loaded in ${loadSeconds} s`);

    const { handler: read } = await import('../../functions/handlers/jobs-read');
    const { handler: review } = await import('../../functions/handlers/reject');
    const { apiEvent, lambdaContext } = await import('../../test/support/api-event');
    const operator = await issueTokens(dynamo, 1, 'operator', ['jobs']);
    const customer = await issueTokens(dynamo, REVIEW_ACCOUNT, 'user', ['reject']);
    const headers = (tokens: typeof operator, body: boolean): Record<string, string> => ({
      Accept: 'application/json',
      ...(body ? { 'Content-Type': 'application/json' } : {}),
      'X-Client-Token': tokens.clientToken,
      'X-Session-Token': tokens.sessionToken,
    });
    const get = (path: string, query?: Record<string, string>): APIGatewayProxyEvent =>
      apiEvent({
        method: 'GET',
        path,
        headers: headers(operator, false),
        ...(query ? { queryStringParameters: query } : {}),
      });
    const post = (path: string, body: object): APIGatewayProxyEvent =>
      apiEvent({ method: 'POST', path, headers: headers(customer, true), body });
    /** Invokes a handler on an event with a fresh Lambda context and checks that it answered 200. */
    const answered = async (handler: typeof read | typeof review, event: APIGatewayProxyEvent): Promise<void> => {
      const answer = await handler(event as never, lambdaContext() as never);
      if (answer.statusCode !== 200)
        throw new Error(`${event.httpMethod} ${event.path}: ${answer.statusCode} ${answer.body}`);
    };

    const reviewFiles = reviewJobs.flatMap((job) => job.files.map((file) => file.id));
    const halfway = reviewFiles.length / 2;
    /** The keys of the 50 files the first page of a review job shows: what its BatchGetItem reads. */
    const pageKeys = (job: Job) =>
      job.files.slice(0, 50).map((file) => ({ pk: jobKeys.pk(job.id), sk: jobKeys.fileSk(file.id) }));
    const cases: Array<{
      id: string;
      label: string;
      /** One measured call: the handler's answer to an event, or a request sent to DynamoDB Local directly. */
      call: (run: number) => Promise<void>;
      /** What is timed: the handler's whole answer, or one DynamoDB request alone. */
      timed: 'handler' | 'request';
      target: boolean;
      /** Whether it only reads, so it may run any number of times before it is timed. */
      reads: boolean;
    }> = [
      {
        id: 'get-job',
        label: 'GET /jobs/{id} (one GetItem)',
        call: (run) => answered(read, get(`/jobs/${1 + ((run * 7_919) % total)}`)),
        timed: 'handler',
        target: true,
        reads: true,
      },
      {
        id: 'page-batch-get',
        label: "BatchGetItem of a page's 50 files, sent to DynamoDB Local directly (no handler)",
        call: async (run) => {
          const keys = pageKeys(reviewJobs[run % reviewJobs.length]!);
          const answer = await dynamo.documents.send(
            new BatchGetCommand({ RequestItems: { [dynamo.jobsTable]: { Keys: keys, ConsistentRead: true } } }),
          );
          const read = answer.Responses?.[dynamo.jobsTable]?.length ?? 0;
          if (read !== keys.length || Object.keys(answer.UnprocessedKeys ?? {}).length > 0)
            throw new Error(`page-batch-get: read ${read} of ${keys.length} files`);
        },
        timed: 'request',
        target: false,
        reads: true,
      },
      {
        id: 'files-page',
        label: 'GET /jobs/{id}/files, 50 of 100 files',
        call: (run) => answered(read, get(`/jobs/${reviewJobs[run % reviewJobs.length]!.id}/files`)),
        timed: 'handler',
        target: true,
        reads: true,
      },
      {
        id: 'files-page-pending',
        label: 'GET /jobs/{id}/files?review=pending, 50 of 100 files',
        call: (run) =>
          answered(read, get(`/jobs/${reviewJobs[run % reviewJobs.length]!.id}/files`, { review: 'pending' })),
        timed: 'handler',
        target: true,
        reads: true,
      },
      {
        id: 'reject',
        label: 'POST /reject of one file',
        call: (run) =>
          answered(review, post('/reject', { files: [{ fileId: reviewFiles[run]!, customRejection: 'Too dark' }] })),
        timed: 'handler',
        target: false,
        reads: false,
      },
      {
        id: 'accept',
        label: 'POST /accept of one file',
        call: (run) => answered(review, post('/accept', { fileIds: [reviewFiles[halfway + run]!] })),
        timed: 'handler',
        target: false,
        reads: false,
      },
    ];
    const figures: Figure[] = [];
    const histograms: Record<string, ReturnType<typeof histogramOf>> = {};
    const medians: Record<string, number> = {};
    const tails: Record<string, number> = {};
    const reads = cases.filter((benchCase) => benchCase.reads);
    log(`warming up: ${WARM_ROUNDS} rounds of ${reads.map((benchCase) => benchCase.id).join(', ')}`);
    for (let round = 0; round < WARM_ROUNDS; round++) for (const benchCase of reads) await benchCase.call(round);
    for (const benchCase of cases) {
      const samples: number[] = [];
      for (let run = 0; run < WARMUP + (benchCase.reads ? runs : reviewRuns); run++) {
        const begun = performance.now();
        await benchCase.call(run);
        const ms = performance.now() - begun;
        if (run >= WARMUP) samples.push(ms);
      }
      const sorted = samples.sort((a, b) => a - b);
      const p50 = round(percentile(sorted, 50));
      const p99 = round(percentile(sorted, 99));
      medians[benchCase.id] = p50;
      tails[benchCase.id] = p99;
      log(`${benchCase.id}: p50 ${p50} ms, p99 ${p99} ms`);
      figures.push({
        id: `jobs-read.${benchCase.timed}.${benchCase.id}.p50`,
        label: `${benchCase.label}: ${benchCase.timed} p50`,
        value: p50,
        unit: 'ms',
      });
      figures.push({
        id: `jobs-read.${benchCase.timed}.${benchCase.id}.p99`,
        label: `${benchCase.label}: ${benchCase.timed} p99`,
        value: p99,
        unit: 'ms',
        ...(benchCase.target
          ? {
              target: {
                text: `p99 ≤ ${TARGET_P99_MS} ms`,
                met: p99 <= TARGET_P99_MS,
                ...(p99 <= TARGET_P99_MS
                  ? {}
                  : {
                      missedBecause:
                        `the handler waits on DynamoDB Local for ${REQUESTS[benchCase.id] ?? 'its requests'}, ` +
                        `where one GetItem takes ${medians['get-job'] ?? 'unknown'} ms at the median (GET /jobs/{id} above) ` +
                        `and the BatchGetItem of a page's 50 files alone, sent directly, ` +
                        `${medians['page-batch-get'] ?? 'unknown'} ms (p99 ${tails['page-batch-get'] ?? 'unknown'} ms): ` +
                        `its median is ${p50} ms, and its tail the machine's (5-minute load average ` +
                        `${machine().loadAverage ?? 'unknown'} on ${machine().cpus} shared cores)`,
                    }),
              },
            }
          : {}),
      });
      histograms[benchCase.id] = histogramOf(sorted, 1, 'ms');
    }
    return {
      parameters: {
        population: total,
        populationFiles: population.files ? 'loaded' : 'job items only',
        loadSeconds,
        reviewJobs: reviewJobs.length,
        filesPerReviewJob: REVIEW_FILES,
        runs,
        reviewRuns,
        warmup: WARMUP,
        warmRounds: WARM_ROUNDS,
      },
      figures,
      notes: [
        'Handler time: the deployed handler module with its whole middy chain, a warm authentication cache, DynamoDB Local in memory.',
        "A page of every file is one strongly consistent Query of the partition's padded file keys, sent beside the job item's GetItem (one round); a page of one state is the same Query filtered to the state (every file of a review job is pending, so the page is found in that round).",
      ],
      histograms,
    };
  } finally {
    await dynamo.stop();
  }
});
