/**
 * How the images function hears of uploads: S3 invokes it (asynchronously) for every object created under
 * `uploads/`. Lambda retries a failed invocation twice, keeps an event waiting (throttled, say) for at most six
 * hours, and then sends it to an SQS dead-letter queue: the event's record — bucket, key, size — never a picture
 * byte. A picture the function finds invalid is no failure (it records why on the file item); what lands here
 * is an upload the function could not finish, which the `ImagesDeadLetters` alarm reports and docs/deploy.md
 * says how to redrive.
 */
import { Duration } from 'aws-cdk-lib';
import type { CfnPermission, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type ImagesBucket, UPLOADS_PREFIX } from './images-bucket';
import { deadLetterQueue } from './dead-letter-queue';

/**
 * Lambda's asynchronous delivery of S3's events: two retries after a failure (Lambda waits about a minute, then
 * two), and six hours — the most Lambda keeps an event — for an event that waits for concurrency.
 */
export const IMAGE_EVENT_DELIVERY = {
  retryAttempts: 2,
  maxEventAge: Duration.hours(6),
} as const;

/**
 * The images function's memory, in MB. A 100-megapixel PNG of 158 MB peaked at 301 MiB resident (its bytes
 * included) in `renderImage`, and a 24-megapixel JPEG at 158 MiB; the largest upload taken (200 MB) held once
 * more as the SDK reads it stays well inside. Lambda gives CPU in proportion to memory (a whole vCPU at 1,769 MB),
 * and libvips decodes and resizes on every core it gets: 2,048 MB is for speed as much as for room.
 */
export const IMAGES_MEMORY_MIB = 2_048;

export interface ImageRenditionsProps {
  images: ImagesBucket;
  /** The images function. */
  renderer: LambdaFunction;
  /** How long dead letters are kept, in days (SQS keeps at most 14). */
  deadLetterRetentionDays: number;
}

/** The bucket's notification to the images function, and the dead-letter queue of what it gave up on. */
export class ImageRenditions extends Construct {
  public readonly deadLetterQueue: Queue;
  /** What lets S3 invoke the images function for this bucket. */
  public readonly invokePermission: CfnPermission;

  public constructor(scope: Construct, id: string, props: ImageRenditionsProps) {
    super(scope, id);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', props.deadLetterRetentionDays);
    props.renderer.configureAsyncInvoke({
      ...IMAGE_EVENT_DELIVERY,
      onFailure: new SqsDestination(this.deadLetterQueue),
    });
    this.invokePermission = props.images.notify(props.renderer, UPLOADS_PREFIX);
  }
}
