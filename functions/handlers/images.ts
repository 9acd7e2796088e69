/**
 * Lambda entry of the images function: S3 invokes it, asynchronously, with the bucket's object-created events of
 * uploads (docs/contract.md §6b). Each record is handled on its own (`images/process-upload.ts`): the picture
 * checked and rendered, then recorded on its file item (`jobs/store/file-images-write.ts`).
 *
 * A record whose bytes are no picture is recorded `invalid` and done. A record that could not be handled because
 * S3 or DynamoDB was unavailable fails the invocation once every record was tried, so Lambda's asynchronous
 * retries deliver the event again (the records handled already are written again, to the same effect) and, when
 * those are spent, the event goes to the dead-letter queue.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import { documentClient } from '../aws/dynamodb';
import { picturesBucket } from '../aws/s3';
import { config } from '../config';
import { type ImageLimits, processUpload, type UploadOutcome } from '../images/process-upload';
import { recordFileImage } from '../jobs/store/file-images-write';
import { JobsTable } from '../jobs/store/jobs-table';
import { logger, metrics } from '../observability';

/** What the images function runs on; each part defaults to the container's own. */
export interface ImagesHandlerOptions {
  /** The client that reads uploads and writes renditions. */
  s3?: () => S3Client;
  /** The jobs table the variants are recorded in. */
  table?: () => JobsTable;
  /** Lower limits than the service's (tests); never higher. */
  limits?: ImageLimits;
}

/** Not every record of an event could be handled; the event is worth delivering again. */
export class ImageEventFailedError extends AggregateError {
  public constructor(errors: unknown[], records: number) {
    super(errors, `${errors.length} of ${records} object-created record(s) could not be handled`);
    this.name = 'ImageEventFailedError';
  }
}

const METRIC_OF_OUTCOME: Record<UploadOutcome['kind'], string> = {
  ready: 'ImagesReady',
  invalid: 'ImagesInvalid',
  gone: 'ImageUploadsGone',
  ignored: 'ImageEventsIgnored',
};

const logOutcome = (outcome: UploadOutcome): void => {
  metrics.addMetric(METRIC_OF_OUTCOME[outcome.kind], MetricUnit.Count, 1);
  if (outcome.kind === 'ignored') {
    logger.info('Object is no upload; passed by', { key: outcome.key });
    return;
  }
  if (outcome.kind === 'gone') {
    logger.warn('Upload no longer exists; nothing to record', { ...outcome.address });
    return;
  }
  const details = {
    ...outcome.address,
    status: outcome.kind,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
  };
  if (outcome.recorded === 'recorded') logger.info('Picture recorded', details);
  else if (outcome.recorded === 'superseded') {
    metrics.addMetric('ImageEventsSuperseded', MetricUnit.Count, 1);
    logger.info('A newer upload of the file is recorded already; this older one is not', details);
  } else logger.warn('The job has no such file (deleted, or never created); nothing recorded', details);
};

/** The images function over `options`: resolves once every record is handled, else throws for a retry. */
export const createImagesHandler = (options: ImagesHandlerOptions = {}) => {
  const s3 = options.s3 ?? (() => picturesBucket().client);
  const table = options.table ?? (() => new JobsTable(documentClient(), config().jobsTable));
  return async (event: S3Event): Promise<void> => {
    const records = event.Records ?? [];
    const failures: unknown[] = [];
    for (const record of records) {
      try {
        logOutcome(
          await processUpload(record, {
            s3,
            record: (address, value) => recordFileImage(table(), address, value),
            ...(options.limits === undefined ? {} : { limits: options.limits }),
          }),
        );
      } catch (error) {
        metrics.addMetric('ImageEventsFailed', MetricUnit.Count, 1);
        logger.error('Object-created record not handled; the event will be delivered again', {
          key: record.s3?.object?.key,
          error,
        });
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new ImageEventFailedError(failures, records.length);
  };
};

/** The Lambda handler. */
export const handler = middy(createImagesHandler()).use(injectLambdaContext(logger)).use(logMetrics(metrics));
