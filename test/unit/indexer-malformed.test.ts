/**
 * A malformed job in the table (a field missing or of the wrong type, written outside the API) fails
 * only its own stream records: the other jobs of the batch are indexed in the same invocation, in both
 * engines, and the malformed job's records are reported as failed rather than the whole batch throwing.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStreamIndexer } from '../../functions/indexing/stream-indexer';
import type { Job } from '../../functions/jobs/model/model';
import type { StoredJob } from '../../functions/jobs/store/repository';
import { createSearchIndex } from '../../functions/search/engine';
import type { SearchIndex } from '../../functions/search/search-index';
import { FakeOpenSearchNode, type RecordedRequest } from '../support/fake-opensearch';
import { makeJob } from '../support/jobs';

let sequence = 0;

const jobRecord = (jobId: number): DynamoDBRecord => {
  sequence += 1;
  const keys = { pk: { S: `JOB#${jobId}` }, sk: { S: 'JOB' } };
  return {
    eventID: `event-${sequence}`,
    eventName: 'MODIFY',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: keys,
      NewImage: { ...keys, version: { N: '1' } },
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber as string;

/** Jobs as the table would hand them over, malformed ones included. */
const table = new Map<number, StoredJob>();
const store = (job: Job): Job => {
  table.set(job.id, { job, version: 1 });
  return job;
};

const indexerOver = (index: SearchIndex) =>
  createStreamIndexer({
    repository: () => ({ getSearchedJob: async (jobId: number) => table.get(jobId) }),
    index: async () => index,
    retry: { attempts: 0, random: () => 0 },
  });

/** Bulk answers of a fake OpenSearch node: every action it receives is created. */
const acceptEverything = (request: RecordedRequest) => {
  if (request.method === 'HEAD') return { status: 200 };
  const actions = request.body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => 'index' in line || 'delete' in line);
  return { status: 200, body: { errors: false, items: actions.map(() => ({ index: { status: 201 } })) } };
};

describe.each(['embedded', 'opensearch'] as const)('a malformed job in a stream batch (%s engine)', (engine) => {
  let index: SearchIndex;
  let node: FakeOpenSearchNode | undefined;

  beforeEach(async () => {
    table.clear();
    if (engine === 'embedded') {
      index = await createSearchIndex({ engine: 'embedded', path: ':memory:' });
    } else {
      node = new FakeOpenSearchNode(acceptEverything);
      const url = await node.start();
      index = await createSearchIndex({
        engine: 'opensearch',
        url,
        index: 'jobs',
        region: 'us-east-1',
        timeoutMs: 2_000,
      });
    }
  });

  afterEach(async () => {
    await index.close();
    await node?.stop();
    node = undefined;
  });

  /**
   * Which of `jobs` reached the engine, in ascending id order: the documents the embedded index holds, the
   * documents the fake OpenSearch node was sent in bulk requests.
   */
  const indexed = async (jobs: Job[]): Promise<number[]> => {
    if (engine === 'embedded') {
      const held = await Promise.all(
        jobs.map(async (job) => ((await index.get(job.id)) === undefined ? [] : [job.id])),
      );
      return held.flat().sort((a, b) => a - b);
    }
    return (node?.requests ?? [])
      .filter((request) => request.path.endsWith('/_bulk'))
      .flatMap((request) => request.body.split('\n').filter((line) => line !== ''))
      .map((line) => JSON.parse(line) as { index?: { _id: string } })
      .flatMap((line) => (line.index === undefined ? [] : [Number(line.index._id)]))
      .sort((a, b) => a - b);
  };

  it.each([
    ['without a guid', { guid: undefined }],
    ['with tags that are not a list', { tags: 'red, blue' }],
    ['with a numeric name', { name: 12 }],
    ['with an unknown status', { status: 'CJ_LOST' }],
  ])('fails only the records of a job %s', async (_name, fields) => {
    const good = store(makeJob());
    const broken = store({ ...makeJob(), ...fields } as unknown as Job);
    const later = store(makeJob());
    const brokenRecords = [jobRecord(broken.id), jobRecord(broken.id)];
    const records = [
      jobRecord(good.id),
      brokenRecords[0] as DynamoDBRecord,
      jobRecord(later.id),
      brokenRecords[1] as DynamoDBRecord,
    ];

    const response = await indexerOver(index)({ Records: records });

    expect(response.batchItemFailures).toEqual(brokenRecords.map((record) => ({ itemIdentifier: sequenceOf(record) })));
    expect(await indexed([good, broken, later])).toEqual([good.id, later.id]);
  });

  it('fails only the records of a job whose document cannot even be built', async () => {
    const good = store(makeJob());
    const broken = store({ ...makeJob(), files: null } as unknown as Job);
    const brokenRecord = jobRecord(broken.id);

    const response = await indexerOver(index)({ Records: [jobRecord(good.id), brokenRecord] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: sequenceOf(brokenRecord) }]);
    expect(await indexed([good, broken])).toEqual([good.id]);
  });
});
