/**
 * Creating jobs through the API (docs/contract.md §6a, `POST /jobs`): jobs per second and DynamoDB requests per
 * job for a job of 1, 100 and 1,000 files, through the deployed `jobs-write` handler module with its whole middy
 * chain and a warm authentication cache, on DynamoDB Local. Each file's answer carries an upload target of its
 * original (§6b); the part of a create that signing takes is timed on its own in the same run — 1,000 presigned
 * POSTs (files that declared nothing), 1,000 presigned PUTs (files that declared size and SHA-256) — beside the
 * 600 presigned GETs of a files page of 100 files with both pictures ready. The requests are counted on the wire: the handler
 * talks to DynamoDB Local through a counting forwarder, so every request the SDK sends (retries included) is
 * seen, whatever module sends it.
 *
 *   npx tsx bench/suites/jobs-create.ts [--quick]
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { issueTokens, startBenchDynamo } from '../lib/dynamo';
import type { Figure } from '../lib/report';
import { percentile, round } from '../lib/stats';
import { runSuite } from '../lib/suite';

/** Jobs created per file count: enough for a steady rate, few enough for the shared machine. */
const RUNS: Record<'full' | 'quick', Record<number, number>> = {
  full: { 1: 500, 100: 100, 1000: 20 },
  quick: { 1: 100, 100: 20, 1000: 5 },
};
const WARMUP = 5;

/** The file whose one target the unsigned baseline answers for every file. */
const UNSIGNED_OWNER = { accountId: 1001, jobId: 1_000_000_000, fileId: 1_000_000_001 };

/** A forwarder in front of DynamoDB Local that counts requests by their operation (`X-Amz-Target`). */
const countingForwarder = async (target: string) => {
  const upstream = new URL(target);
  const counts = new Map<string, number>();
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const operation = String(incoming.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    const forwarded = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The counts since the last call, and a fresh start. */
    take: (): Map<string, number> => {
      const taken = new Map(counts);
      counts.clear();
      return taken;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Rounds of each signing measurement. */
const SIGNING_ROUNDS: Record<'full' | 'quick', number> = { full: 20, quick: 5 };

/** The time of signing 1,000 upload targets of each kind and a page's 600 download URLs, as one request signs them. */
const signingFigures = async (mode: 'full' | 'quick', log: (line: string) => void): Promise<Figure[]> => {
  const { picturesBucket } = await import('../../functions/aws/s3');
  const { PictureUrls } = await import('../../functions/images/picture-urls');
  const { readyVariant } = await import('../../test/support/pictures');
  const sha256 = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';
  const owner = (fileId: number) => ({ accountId: 1001, jobId: 1_000_000_000, fileId });
  const ids = Array.from({ length: 1_000 }, (_, index) => 1_000_000_001 + index);
  const ready = readyVariant();
  const cases: Array<[string, string, (urls: InstanceType<typeof PictureUrls>) => Promise<unknown>]> = [
    [
      'targets-post',
      '1,000 upload targets (presigned POST), one request',
      (urls) => Promise.all(ids.map((id) => urls.uploadTarget(owner(id), 'original', `shoe_${id}.jpg`))),
    ],
    [
      'targets-put',
      '1,000 upload targets of declared files (presigned PUT), one request',
      (urls) =>
        Promise.all(
          ids.map((id) => urls.uploadTarget(owner(id), 'original', `shoe_${id}.jpg`, { size: 5_000, sha256 })),
        ),
    ],
    [
      'page-urls',
      '600 download URLs: a page of 100 files with both pictures ready',
      (urls) =>
        Promise.all(
          ids
            .slice(0, 100)
            .flatMap((id) => [
              urls.view(owner(id), 'original', `shoe_${id}.jpg`, ready),
              urls.view(owner(id), 'edited', `shoe_${id}.jpg`, ready),
            ]),
        ),
    ],
  ];
  const figures: Figure[] = [];
  for (const [id, label, sign] of cases) {
    const samples: number[] = [];
    for (let round = 0; round < 2 + SIGNING_ROUNDS[mode]; round++) {
      const begun = performance.now();
      await sign(new PictureUrls(picturesBucket()));
      if (round >= 2) samples.push(performance.now() - begun);
    }
    const sorted = samples.sort((a, b) => a - b);
    log(`signing ${label}: p50 ${round(percentile(sorted, 50))} ms`);
    figures.push(
      {
        id: `jobs-create.signing.${id}.p50`,
        label: `Signing ${label}: p50`,
        value: round(percentile(sorted, 50)),
        unit: 'ms',
      },
      {
        id: `jobs-create.signing.${id}.max`,
        label: `Signing ${label}: slowest of ${SIGNING_ROUNDS[mode]}`,
        value: round(sorted.at(-1)!),
        unit: 'ms',
      },
    );
  }
  return figures;
};

await runSuite('jobs-create', 'Creating jobs through the API', async ({ mode, log }) => {
  const dynamo = await startBenchDynamo();
  const forwarder = await countingForwarder(dynamo.env.DYNAMODB_ENDPOINT as string);
  try {
    Object.assign(process.env, dynamo.env, {
      DYNAMODB_ENDPOINT: forwarder.endpoint,
      SEARCH_ENGINE: 'embedded',
      SEARCH_DB_PATH: ':memory:',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
      // The bucket the targets are signed for: signing is local, so no S3 is needed (nor contacted).
      IMAGES_BUCKET: 'bench-images',
    });
    const { handler } = await import('../../functions/handlers/jobs-write');
    const { apiEvent, lambdaContext } = await import('../../test/support/api-event');
    const customer = await issueTokens(dynamo, 1001, 'user', ['jobs']);
    const create = (files: number, run: number) =>
      apiEvent({
        method: 'POST',
        path: '/jobs',
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'X-Client-Token': customer.clientToken,
          'X-Session-Token': customer.sessionToken,
        },
        body: {
          name: `Catalogue ${files}-${run}`,
          description: 'White background, keep the shadows',
          files: Array.from({ length: files }, (_, index) => ({
            fileName: `shoe_${run}_${index}.jpg`,
            remarkToProcessor: 'Remove the price tag',
          })),
        },
      });

    const figures: Figure[] = [];
    const notes: string[] = [];
    const { PictureUrls } = await import('../../functions/images/picture-urls');
    const { picturesBucket: picturesBucketOf } = await import('../../functions/aws/s3');
    const signTarget = PictureUrls.prototype.uploadTarget;
    /**
     * The baseline of the signing: the same handler, its upload targets made without signing — each file answered
     * one fixed target of the same shape and size — so the answer, its validation and its serialisation stay.
     */
    const withoutSigning = async <T>(work: () => Promise<T>): Promise<T> => {
      const fixed = await signTarget.call(new PictureUrls(picturesBucketOf()), UNSIGNED_OWNER, 'original', 'shoe.jpg');
      PictureUrls.prototype.uploadTarget = () => Promise.resolve(fixed);
      try {
        return await work();
      } finally {
        PictureUrls.prototype.uploadTarget = signTarget;
      }
    };
    const variants = [
      ...Object.entries(RUNS[mode]).map(([files, runs]) => ({ fileCount: Number(files), runs, signed: true })),
      // Same run, same handler, same 1,000 files: the targets not signed.
      { fileCount: 1_000, runs: RUNS[mode][1000]!, signed: false },
    ];
    const p50Of = new Map<string, number>();
    for (const { fileCount, runs, signed } of variants) {
      const samples: number[] = [];
      let requests = new Map<string, number>();
      let total = 0;
      const measureRuns = async () => {
        for (let run = 0; run < WARMUP + runs; run++) {
          const event = create(fileCount, run);
          if (run === WARMUP) forwarder.take();
          const begun = performance.now();
          const answer = await handler(event as never, lambdaContext() as never);
          const ms = performance.now() - begun;
          if (answer.statusCode !== 201) throw new Error(`${fileCount} files: ${answer.statusCode} ${answer.body}`);
          if (run >= WARMUP) {
            samples.push(ms);
            total += ms;
          }
        }
      };
      await (signed ? measureRuns() : withoutSigning(measureRuns));
      requests = forwarder.take();
      const perJob = [...requests.values()].reduce((sum, count) => sum + count, 0) / runs;
      const sorted = samples.sort((a, b) => a - b);
      const rate = round((runs / total) * 1_000);
      const p50 = round(percentile(sorted, 50));
      const key = signed ? String(fileCount) : `${fileCount}-unsigned`;
      p50Of.set(key, p50);
      log(`${key} files: ${rate} jobs/s, p50 ${p50} ms, ${perJob} requests per job`);
      const label = `POST /jobs with ${fileCount} file${fileCount === 1 ? '' : 's'}${signed ? '' : ', targets not signed (baseline)'}`;
      const signedP50 = p50Of.get(String(fileCount));
      const comparison =
        !signed && signedP50 !== undefined
          ? {
              baseline: { label: 'the same create with its targets signed', value: signedP50, unit: 'ms' },
              ratio: {
                value: round(signedP50 / p50),
                text: `signed targets make it ${round(signedP50 / p50)}× this`,
              },
            }
          : {};
      figures.push(
        {
          id: `jobs-create.${key}.rate`,
          label: `${label}: jobs per second, one at a time`,
          value: rate,
          unit: 'jobs/s',
        },
        {
          id: `jobs-create.${key}.p50`,
          label: `${label}: handler p50`,
          value: p50,
          unit: 'ms',
          ...comparison,
        },
        {
          id: `jobs-create.${key}.p99`,
          label: `${label}: handler p99`,
          value: round(percentile(sorted, 99)),
          unit: 'ms',
        },
        {
          id: `jobs-create.${key}.requests`,
          label: `${label}: DynamoDB requests per job`,
          value: round(perJob),
          unit: 'requests',
        },
      );
      notes.push(
        `${label}: ${[...requests.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([operation, count]) => `${operation} ${round(count / runs)}`)
          .join(', ')} per job.`,
      );
    }
    figures.push(...(await signingFigures(mode, log)));
    return {
      parameters: { runs: JSON.stringify(RUNS[mode]), warmup: WARMUP },
      figures,
      notes: [
        'Handler time: the deployed handler module with its whole middy chain, a warm authentication cache, DynamoDB Local in memory; one create at a time, so jobs per second is 1 / mean latency.',
        'Signing: one PictureUrls per request (one S3 client, credentials resolved once and cached, one clock), the AWS SDK presigners; no request leaves the process. The create figures above include it; the baseline row (targets not signed) is the same handler in the same run with every file answered one fixed, already signed target, so the ratio is what signing the targets costs a create.',
        'Requests counted on the wire between the SDK and DynamoDB Local (ids come from a counter advanced in blocks of 1,024 per container, so the block reservation is amortised over the run).',
        ...notes,
      ],
    };
  } finally {
    await forwarder.stop();
    await dynamo.stop();
  }
});
