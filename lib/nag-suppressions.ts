/**
 * The cdk-nag AwsSolutions findings this design accepts, each acknowledged on the narrowest construct
 * with the reason it is accepted. Any other finding stops synthesis (and fails test/infra).
 */
import { type Stack, Token, Validations } from 'aws-cdk-lib';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { EventPublishing } from './event-publishing';
import type { HandlerFunction } from './handler-function';
import type { FunctionName } from './stack-functions';
import type { ImageRenditions } from './image-renditions';
import { type ImagesBucket, RENDITIONS_PREFIX, UPLOADS_PREFIX } from './images-bucket';
import type { ApiRateLimits } from './rate-limits';
import type { OperatorPolicy } from './operator-policy';
import type { JobsRestApi } from './rest-api';
import type { SearchDomain } from './search-domain';
import type { StreamIndexer } from './stream-indexer';
import type { WebhookDelivery } from './webhook-delivery';

/** The parts of the stack that carry accepted findings. */
export interface AcknowledgedParts extends Stack {
  searchDomain: SearchDomain;
  functions: Record<FunctionName, HandlerFunction>;
  imagesBucket: ImagesBucket;
  imageRenditions: ImageRenditions;
  operatorPolicy: OperatorPolicy;
  /** The key that signs file-page cursors. */
  cursorKey: Secret;
  restApi: JobsRestApi;
  streamIndexer: StreamIndexer;
  eventPublishing: EventPublishing;
  webhookDelivery: WebhookDelivery;
  rateLimits: ApiRateLimits | undefined;
}

export const XRAY_REASON =
  'X-Ray tracing (Tracing.ACTIVE) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which ' +
  'support no resource-level permissions, so their resource is "*".';

/**
 * How cdk-nag names a resource in its findings: the parts of a `Fn::Join` in a row, a pseudo parameter or
 * a reference as `<Name>`, any other intrinsic as its JSON.
 */
const nagNameOf = (stack: Stack, value: string): string => {
  const part = (resolved: unknown): string => {
    if (typeof resolved === 'string') return resolved;
    const node = resolved as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
    if (node.Ref !== undefined) return `<${node.Ref}>`;
    if (node['Fn::Join'] !== undefined) return node['Fn::Join'][1].map(part).join(node['Fn::Join'][0]);
    return JSON.stringify(resolved);
  };
  return Token.isUnresolved(value) ? part(stack.resolve(value)) : value;
};

export const OBJECT_PREFIX_REASON =
  "The pictures' objects are addressed by key prefix: every key names its account, job, file, variant and an " +
  'upload id of its own (functions/images/object-keys.ts), so no fixed list of keys exists to grant. Each role ' +
  'holds only the action its code calls, on the one prefix it calls it on, in this stack’s bucket.';

/** Records the accepted findings on the stack's constructs. */
export const acknowledgeAcceptedFindings = (stack: AcknowledgedParts): void => {
  Validations.of(stack.searchDomain).acknowledge(
    {
      id: 'AwsSolutions-OS1',
      reason:
        'The functions run outside a VPC, so the domain has a public endpoint; every request must be ' +
        'SigV4-signed by a role the access policy names, over HTTPS (TLS 1.2+). A VPC would add NAT ' +
        'gateways and cold-start ENIs for no additional control.',
    },
    {
      id: 'AwsSolutions-OS3',
      reason:
        'Lambda has no fixed source IP to allowlist; access is restricted by IAM (SigV4) to the function roles instead.',
    },
    {
      id: 'AwsSolutions-OS4',
      reason:
        'A small deployment (3 data nodes in 3 zones by default, which keep a quorum when a zone fails) runs ' +
        'without dedicated master nodes; add them through the capacity settings when the cluster grows.',
    },
  );

  Validations.of(stack.cursorKey).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The secret is an HMAC key that only signs the opaque page cursors of GET /jobs/{id}/files; it guards no ' +
      'data and grants no access. Rotating it would only end the pagings in progress, so it is not rotated on a ' +
      'schedule; replacing the secret (a new stack resource) rotates it when needed.',
  });

  if (!stack.searchDomain.zoneAware) {
    Validations.of(stack.searchDomain).acknowledge({
      id: 'AwsSolutions-OS7',
      reason:
        'Zone awareness was turned off by context (searchZoneCount=1), which only a development deployment ' +
        'should do; the production default spreads the nodes over three zones.',
    });
  }

  for (const name of [
    'Search',
    'SearchFields',
    'Reject',
    'Sessions',
    'JobsRead',
    'JobsWrite',
    'Webhooks',
    'Indexer',
    'Images',
    'Events',
    'WebhooksSender',
  ] as const) {
    Validations.of(stack.functions[name]).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: XRAY_REASON });
  }
  const objects = (prefix: string) => ({
    id: `AwsSolutions-IAM5[Resource::${nagNameOf(stack, stack.imagesBucket.objectsArn(prefix))}]`,
    reason: OBJECT_PREFIX_REASON,
  });
  Validations.of(stack.functions.JobsWrite).acknowledge(objects(UPLOADS_PREFIX));
  Validations.of(stack.functions.JobsRead).acknowledge(objects(UPLOADS_PREFIX), objects(RENDITIONS_PREFIX));
  Validations.of(stack.functions.Images).acknowledge(objects(UPLOADS_PREFIX), objects(RENDITIONS_PREFIX));
  Validations.of(stack.operatorPolicy.policy).acknowledge({
    ...objects(UPLOADS_PREFIX),
    reason:
      "seed-demo --stack uploads the demo jobs' pictures, one object per file and variant under keys that carry an " +
      'upload id of their own (functions/images/object-keys.ts): the operator may put uploads, no rendition, and ' +
      'read no object.',
  });

  Validations.of(stack.imageRenditions.deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: "This queue is itself the images function's on-failure destination for the bucket's upload events.",
  });

  Validations.of(stack.streamIndexer.deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: 'This queue is itself the dead-letter destination of the stream event source.',
  });

  Validations.of(stack.eventPublishing.deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: "This queue is itself the dead-letter destination of the events function's stream event source.",
  });

  Validations.of(stack.webhookDelivery.deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: "This queue is itself the dead-letter queue of the webhooks' queue.",
  });

  const api = stack.restApi;
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions-APIG2',
      reason:
        "Requests are validated by the functions' middy chain in the order the contract prescribes, with the contract's " +
        'error bodies; API Gateway request validation would answer earlier with its own error shape.',
    },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Every request is authenticated by the functions (X-Client-Token and X-Session-Token, checked against ' +
        'the auth table) so the contract can order the 400/401/403 answers; no API Gateway authorizer is involved.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason: 'Clients and sessions are issued by the Jobs API itself (CLI), not by a Cognito user pool.',
    },
  );
  if (stack.rateLimits === undefined) {
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'The per-client WAF limits are off by default (they cost a web ACL, a rule each and a charge per ' +
        'request); stage throttling limits abuse until ipRateLimit or clientRateLimit switches them on.',
    });
  }
};
