/**
 * The pictures' bucket (docs/contract.md §6b, "Storage"): one private bucket per stage holding the uploads and
 * the renditions the images function makes of them. Block Public Access on every setting, object ownership
 * enforced (no ACLs), S3-managed encryption, a bucket policy refusing any request without TLS 1.2 or later,
 * incomplete multipart uploads aborted after a day, and server access logs (who fetched which picture with which
 * presigned URL) in a log bucket of their own, kept `retentionDays`.
 *
 * The bucket's name is known before the bucket exists (`jobs-api-<stage>-images-<account>-<8 hex of the stack
 * id>`): the functions' policies, their environment and the permission S3 needs to invoke the images function
 * name it without referring to the bucket, so the bucket can depend on that permission (S3 checks it when the
 * notification is configured) with no dependency cycle. The stack id makes it unique per stack instance, so a
 * stage deployed again after `cdk destroy` never meets its retained predecessor's name.
 */
import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import type { CfnPermission, IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type CorsRule,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { RENDITIONS_PREFIX, UPLOADS_PREFIX } from '../functions/images/object-keys';

export { RENDITIONS_PREFIX, UPLOADS_PREFIX };

/** The CDK feature flag under which server access logs are delivered by a bucket policy instead of an ACL. */
const S3_LOGS_BY_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

/** How long an incomplete multipart upload may wait before S3 aborts it (and stops charging for its parts). */
export const ABORT_INCOMPLETE_UPLOADS_AFTER = Duration.days(1);

/** How long a browser may cache the answer to a CORS preflight, in seconds. */
export const CORS_MAX_AGE_SECONDS = 3_000;

/**
 * The bucket's name, unique per stack instance: `jobs-api-<stage>-images-<account>-` and the first group of the
 * stack's own id (a UUID CloudFormation draws when it creates the stack). At most 58 characters (S3 takes 63).
 */
export const imagesBucketName = (stage: string): string =>
  Fn.join('', [
    `jobs-api-${stage}-images-`,
    Aws.ACCOUNT_ID,
    '-',
    Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID)))),
  ]);

export interface ImagesBucketProps {
  /** The stage, which names the bucket. */
  stage: string;
  /**
   * Whether the buckets (and what they hold) are retained when the stack is deleted, as the tables are: the
   * stage's `deletionProtection`. Unprotected, they go with the stack once emptied.
   */
  retain: boolean;
  /** Days the server access logs are kept (the stage's `retentionDays`). */
  accessLogRetentionDays: number;
  /**
   * Origins whose web pages may upload and download with presigned URLs (CORS); none by default: uploads from
   * servers and native apps need no CORS. `*` admits every origin.
   */
  corsOrigins: readonly string[];
}

/** The private bucket of the pictures, and the log bucket of its server access logs. */
export class ImagesBucket extends Construct {
  public readonly bucket: Bucket;
  /** Where S3 writes the bucket's server access logs. */
  public readonly accessLogs: Bucket;
  /** The bucket's name, known without referring to the bucket. */
  public readonly bucketName: string;

  public constructor(scope: Construct, id: string, props: ImagesBucketProps) {
    super(scope, id);
    // S3 delivers the access logs under a bucket policy (the log bucket has no ACLs, as object ownership enforced
    // requires), not the `log-delivery-write` ACL of older CDK defaults.
    this.node.setContext(S3_LOGS_BY_BUCKET_POLICY, true);
    this.bucketName = imagesBucketName(props.stage);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy,
    };
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      lifecycleRules: [
        {
          expiration: Duration.days(props.accessLogRetentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    this.bucket = new Bucket(this, 'Bucket', {
      ...privateBucket,
      bucketName: this.bucketName,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'images/',
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: ABORT_INCOMPLETE_UPLOADS_AFTER }],
      ...(props.corsOrigins.length === 0 ? {} : { cors: [corsRuleFor(props.corsOrigins)] }),
    });
  }

  /** The ARN of every object under a key prefix (`uploads/`), built from the name alone. */
  public objectsArn(prefix: string): string {
    return `arn:${Aws.PARTITION}:s3:::${this.bucketName}/${prefix}*`;
  }

  /**
   * Invokes `fn` for every object created under `prefix` (the bucket's one notification): S3 may invoke the
   * function for this bucket of this account only, and the bucket is configured once that permission exists.
   */
  public notify(fn: IFunction, prefix: string): CfnPermission {
    fn.addPermission('InvokedByImagesBucket', {
      principal: new ServicePrincipal('s3.amazonaws.com'),
      sourceArn: `arn:${Aws.PARTITION}:s3:::${this.bucketName}`,
      sourceAccount: Aws.ACCOUNT_ID,
    });
    const cfnBucket = this.bucket.node.defaultChild as CfnBucket;
    cfnBucket.notificationConfiguration = {
      lambdaConfigurations: [
        {
          event: 's3:ObjectCreated:*',
          function: fn.functionArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: prefix }] } },
        },
      ],
    };
    const permission = fn.permissionsNode.findChild('InvokedByImagesBucket') as CfnPermission;
    this.bucket.node.addDependency(permission);
    return permission;
  }
}

/**
 * What a web page of an allowed origin may do with presigned URLs: upload (a presigned `PUT` with its signed
 * headers, or a `POST` form), download and read headers. Any request header, since a `PUT` carries whichever
 * headers its URL signs (content type, length, checksum); the `ETag` readable, for an uploader to show.
 */
export const corsRuleFor = (origins: readonly string[]): CorsRule => ({
  allowedOrigins: [...origins],
  allowedMethods: [HttpMethods.PUT, HttpMethods.POST, HttpMethods.GET, HttpMethods.HEAD],
  allowedHeaders: ['*'],
  exposedHeaders: ['ETag'],
  maxAge: CORS_MAX_AGE_SECONDS,
});
