/**
 * The webhooks' sender on SQS (functions/handlers/webhooks-sender.ts, functions/webhooks/sqs-queue.ts), SQS mocked
 * with aws-sdk-client-mock: an event from the bus becomes one delivery message per webhook, a failed delivery is
 * made invisible until its next attempt and reported failed, the receive count numbers the attempt.
 */
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobsEvent } from '../../../functions/events/cloud-event';
import { createSender } from '../../../functions/handlers/webhooks-sender';
import { metrics } from '../../../functions/observability';
import { WEBHOOK_DELIVERIES_FAILED_METRIC } from '../../../functions/webhooks/delivery';
import type { AttemptRecord, WebhookRecord } from '../../../functions/webhooks/records';
import type { AttemptResult, SendOptions } from '../../../functions/webhooks/send';
import { sqsDeliveryQueue } from '../../../functions/webhooks/sqs-queue';
import { clientRecord } from '../../support/auth-records';

const sqsMock = mockClient(SQSClient);
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks';

const event: JobsEvent = {
  specversion: '1.0',
  id: 'jobs/7/v1/job.created',
  source: 'urn:test',
  type: 'job.created',
  time: '2026-03-01T00:00:00.000Z',
  subject: 'jobs/7',
  datacontenttype: 'application/json',
  data: { accountId: 1001, jobId: 7, version: 1, status: 'CJ_NEW' },
} as JobsEvent;

const hook: WebhookRecord = {
  webhookId: 'wh_a',
  clientId: 'c1',
  clientKey: 'CLIENT#h',
  url: 'https://93.184.216.34/hooks',
  events: ['job.created'],
  secret: 'whsec_x',
  createdAt: '2026-01-01T00:00:00.000Z',
  enabled: true,
  attemptCount: 0,
};

const record = (body: unknown, receiveCount = 1, sentAt = Date.now()): SQSRecord =>
  ({
    messageId: `m-${receiveCount}-${Math.random()}`,
    receiptHandle: 'handle-1',
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: String(sentAt) },
  }) as unknown as SQSRecord;

let answers: AttemptResult[];
let recorded: AttemptRecord[];
let sent: SendOptions[];

const sender = () => {
  const sqs = new SQSClient({ region: 'eu-west-1' });
  return createSender(() => ({
    deliveries: {
      store: {
        registry: async () => [
          { webhookId: 'wh_a', clientId: 'c1', events: ['job.created'] },
          { webhookId: 'wh_b', clientId: 'c2', events: ['job.created', 'job.updated'] },
          { webhookId: 'wh_c', clientId: 'c3', events: ['file.rejected'] },
        ],
        get: async () => hook,
        recordAttempt: async (_id, attempt) => {
          recorded.push(attempt);
          return hook;
        },
      },
      readClient: async () => clientRecord({ grants: ['webhooks'] }),
      send: async (options) => {
        sent.push(options);
        return answers.shift() ?? { delivered: true, statusCode: 200, at: new Date().toISOString(), durationMs: 1 };
      },
      policy: { retryDelaysMs: [5_000, 300_000], retryWindowMs: 86_400_000 },
      disableAfterMs: 5 * 86_400_000,
      allowLocal: false,
    },
    queue: sqsDeliveryQueue(sqs, QUEUE),
    sqs,
    queueUrl: QUEUE,
  }));
};

beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  sqsMock.on(ChangeMessageVisibilityCommand).resolves({});
  answers = [];
  recorded = [];
  sent = [];
});

/**
 * The metrics the sender counts, by name. They are taken from the container's emitter before it stores them: the
 * handler's middleware would publish them, `createSender` alone leaves them stored, and the unit files share one
 * emitter.
 */
let counted: string[];

beforeEach(() => {
  counted = [];
  vi.spyOn(metrics, 'addMetric').mockImplementation((name) => {
    counted.push(name);
    return metrics;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the webhooks sender', () => {
  it('routes an event from the bus into one delivery message per webhook of its type', async () => {
    const result = await sender()({
      Records: [record({ 'detail-type': 'job.created', source: 'urn:test', detail: event })],
    } as SQSEvent);
    expect(result.batchItemFailures).toEqual([]);
    const [call] = sqsMock.commandCalls(SendMessageBatchCommand);
    const bodies = (call?.args[0].input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody ?? '{}') as object);
    expect(bodies).toEqual([
      { webhookId: 'wh_a', event },
      { webhookId: 'wh_b', event },
    ]);
    expect(sent).toEqual([]);
  });

  it('sends a delivery and reports nothing failed when the endpoint answers 2xx', async () => {
    const result = await sender()({ Records: [record({ webhookId: 'wh_a', event })] } as SQSEvent);
    expect(result.batchItemFailures).toEqual([]);
    expect(sent[0]?.messageId).toBe(event.id);
    expect(recorded[0]).toMatchObject({ attempt: 1, status: 'delivered' });
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  it("makes a failed delivery invisible until its next attempt and reports it failed, numbered by the queue's count", async () => {
    answers = [
      { delivered: false, statusCode: 500, error: 'answered 500', at: new Date().toISOString(), durationMs: 1 },
    ];
    const message = record({ webhookId: 'wh_a', event }, 2);
    const result = await sender()({ Records: [message] } as SQSEvent);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(recorded[0]).toMatchObject({ attempt: 2, status: 'retrying' });
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE,
      ReceiptHandle: 'handle-1',
      VisibilityTimeout: 300,
    });
  });

  it('drops a delivery whose schedule is over, recording it failed, and a message that is neither kind', async () => {
    answers = [{ delivered: false, error: 'no answer within 10000 ms', at: new Date().toISOString(), durationMs: 1 }];
    const result = await sender()({
      Records: [record({ webhookId: 'wh_a', event }, 3), record({ something: 'else' })],
    } as SQSEvent);
    expect(result.batchItemFailures).toEqual([]);
    expect(recorded[0]).toMatchObject({ attempt: 3, status: 'failed' });
    expect(sqsMock.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  it('counts a delivery given up on for the failed deliveries’ alarm, and neither a delivered nor a retried one', async () => {
    answers = [
      { delivered: true, statusCode: 204, at: new Date().toISOString(), durationMs: 1 },
      { delivered: false, statusCode: 500, at: new Date().toISOString(), durationMs: 1 },
      { delivered: false, error: 'no answer within 10000 ms', at: new Date().toISOString(), durationMs: 1 },
    ];
    const send = sender();
    await send({ Records: [record({ webhookId: 'wh_a', event }, 1)] } as SQSEvent);
    await send({ Records: [record({ webhookId: 'wh_a', event }, 2)] } as SQSEvent);
    await send({ Records: [record({ webhookId: 'wh_a', event }, 3)] } as SQSEvent);
    expect(recorded.map((attempt) => attempt.status)).toEqual(['delivered', 'retrying', 'failed']);
    expect(counted).toEqual([WEBHOOK_DELIVERIES_FAILED_METRIC]);
  });

  it('reports an event failed when SQS refuses its deliveries, so the queue offers it again', async () => {
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [{ Id: '0', Code: 'x', SenderFault: false }] });
    const message = record({ 'detail-type': 'job.created', source: 'urn:test', detail: event });
    const result = await sender()({ Records: [message] } as SQSEvent);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
  });
});
