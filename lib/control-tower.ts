/**
 * AWS Control Tower's proactive controls, checked by cfn-guard on every synthesis beside cdk-nag. The
 * `@cdklabs/cdk-validator-cfnguard` plugin ships the cfn-guard binary (Linux and macOS, x86-64 and arm64)
 * and the rules, so the check runs offline. A finding stops synthesis (and fails test/infra) unless it is
 * acknowledged here, on the narrowest construct, with the reason this stack is deliberately different or
 * the rule is wrong about it.
 */
import {
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  type Stack,
  Validations,
} from 'aws-cdk-lib';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import type { EventPublishing } from './event-publishing';
import type { ImageRenditions } from './image-renditions';
import type { ImagesBucket } from './images-bucket';
import type { JobsRestApi } from './rest-api';
import type { SearchDomain } from './search-domain';
import type { JobsApiConfig } from './stack-config';
import type { StreamIndexer } from './stream-indexer';
import type { WebhookDelivery } from './webhook-delivery';

/** The plugin's name, which CDK uses as the namespace of its rule ids. */
export const CONTROL_TOWER_PLUGIN = 'cdk-validator-cfnguard';

/** The retention, in days, from which a log group meets CT.CLOUDWATCH.PR.2. */
export const ONE_YEAR_IN_DAYS = 365;

/** The bundled Control Tower rules: one `.guard` file per control, in a folder per service. */
export const CONTROL_TOWER_RULES = join(
  dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules',
  'control-tower',
  'cfn-guard',
);

/** Every rule file (`.guard`) under a folder, in a stable order. */
export const ruleFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return ruleFiles(path);
      return entry.name.endsWith('.guard') ? [path] : [];
    });

/** The CloudFormation resource types (`AWS::S3::Bucket`) a rule file names anywhere in its text. */
const typesNamedBy = (file: string): string[] => [
  ...new Set(readFileSync(file, 'utf8').match(/\bAWS::[A-Za-z0-9]+::[A-Za-z0-9]+\b/g) ?? []),
];

/** A synthesized template, as far as the rules read it. */
interface Template {
  Resources?: Record<string, { Type?: string }>;
  [section: string]: unknown;
}

/** The resource types a template holds. */
const typesIn = (template: Template): string[] =>
  Object.values(template.Resources ?? {}).map((resource) => resource.Type ?? '');

/**
 * The rule files that can report on a synthesis whose templates hold `types`: those naming at least one of
 * them. Each Control Tower rule selects the resources of the types it reports on and SKIPs a template that
 * holds none (its first scenario), so the rules left out could only skip; running them cost cfn-guard the
 * same parse of the template as a rule that applies (about 0.1 CPU-second each on this stack's template).
 */
export const applicableRules = (rules: readonly string[], types: ReadonlySet<string>): string[] =>
  rules.filter((file) => typesNamedBy(file).some((type) => types.has(type)));

/**
 * The template as the rules that name `types` see it: each resource of another type keeps only its `Type`.
 * A rule reads the resources of the types it names, which it selects by `Type`; of any other resource it can
 * only learn, following a `Ref` or `Fn::GetAtt` to it by logical id, that it exists and which type it is. So
 * the stub gives every such rule the same findings, at the same paths, while cfn-guard, which copies every
 * resource a query passes over (each `Resources.*` filter and each lookup of a reference), has far less to copy.
 */
export const templateForTypes = (template: Template, types: ReadonlySet<string>): Template => ({
  ...template,
  Resources: Object.fromEntries(
    Object.entries(template.Resources ?? {}).map(([id, resource]) => [
      id,
      types.has(resource.Type ?? '') ? resource : { Type: resource.Type },
    ]),
  ),
});

/**
 * The applicable rules ({@link applicableRules}) in groups, each with the resource types its rules name that the
 * templates hold; a rule naming none of them is left out. The rules of a service mostly name the same types (the
 * fifteen S3 rules only AWS::S3::Bucket), so the stage's 47 rules make about fifteen groups.
 */
const groupsOf = (rules: readonly string[], held: ReadonlySet<string>): { rules: string[]; types: Set<string> }[] => {
  const groups = new Map<string, { rules: string[]; types: Set<string> }>();
  for (const rule of rules) {
    const types = typesNamedBy(rule)
      .filter((type) => held.has(type))
      .sort();
    if (types.length === 0) continue;
    const key = types.join(' ');
    const group = groups.get(key) ?? { rules: [], types: new Set(types) };
    group.rules.push(rule);
    groups.set(key, group);
  }
  return [...groups.values()];
};

/**
 * The validation plugin: every bundled Control Tower rule that can report on the synthesized templates
 * ({@link applicableRules}), none disabled. It runs cfn-guard through `CfnGuardValidator` and marks each
 * finding an error: the validator leaves the severity unset, and once any finding of a report is acknowledged
 * CDK re-judges the report by severity alone, so unmarked findings would no longer stop synthesis.
 *
 * cfn-guard's cost grows with the rules times the resources each rule's queries copy (most of it the
 * allocator mapping and unmapping memory): on this stack's template, all 47 rules in one run cost about
 * 14 CPU-seconds. So the rules run in groups that name the same types ({@link groupsOf}), each on copies of the
 * templates that hold any of those types, in which every other resource is reduced to its type
 * ({@link templateForTypes}): about 6.5 CPU-seconds in all, with the same findings. Each finding names the
 * template the synthesis wrote, as the construct paths are read from it.
 */
export class ControlTowerChecks implements IPolicyValidationPlugin {
  public readonly name = CONTROL_TOWER_PLUGIN;
  public readonly version: string | undefined;
  public readonly ruleIds: string[] | undefined;
  private readonly rules = ruleFiles(CONTROL_TOWER_RULES);

  public constructor() {
    const guard = new CfnGuardValidator({ controlTowerRulesEnabled: true });
    this.version = guard.version;
    this.ruleIds = guard.ruleIds;
  }

  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const templates = context.templatePaths.map((path) => {
      const template = JSON.parse(readFileSync(path, 'utf8')) as Template;
      return { path, template, types: new Set(typesIn(template)) };
    });
    const held = new Set(templates.flatMap(({ types }) => [...types]));
    const groups = groupsOf(this.rules, held);
    if (groups.length === 0) return { success: true, violations: [] };

    const workdir = mkdtempSync(join(tmpdir(), 'control-tower-'));
    try {
      const reports = groups.map((group, index) => {
        const folder = join(workdir, String(index));
        mkdirSync(folder);
        const written = new Map<string, string>();
        for (const { path, template, types } of templates) {
          if (![...group.types].some((type) => types.has(type))) continue;
          const copy = join(folder, `${written.size}-${basename(path)}`);
          writeFileSync(copy, JSON.stringify(templateForTypes(template, group.types)));
          written.set(copy, path);
        }
        const report = new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: group.rules }).validate({
          ...context,
          templatePaths: [...written.keys()],
        });
        return {
          success: report.success,
          violations: report.violations.map((violation) => ({
            ...violation,
            severity: violation.severity ?? 'error',
            violatingResources: violation.violatingResources.map((resource) => ({
              ...resource,
              templatePath: written.get(resource.templatePath) ?? resource.templatePath,
            })),
          })),
        };
      });
      return {
        success: reports.every((report) => report.success),
        violations: reports.flatMap((report) => report.violations),
      };
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  }
}

/** The id under which a cfn-guard rule (`cloudwatch_alarm_action_check`) is acknowledged. */
export const guardRuleId = (rule: string): string => `${CONTROL_TOWER_PLUGIN}::${rule}`;

/** The parts of the stack that carry accepted findings. */
export interface ControlTowerParts extends Stack {
  searchDomain: SearchDomain;
  restApi: JobsRestApi;
  streamIndexer: StreamIndexer;
  eventPublishing: EventPublishing;
  webhookDelivery: WebhookDelivery;
  imagesBucket: ImagesBucket;
  imageRenditions: ImageRenditions;
}

const acknowledge = (scope: IConstruct, rule: string, reason: string): void => {
  Validations.of(scope).acknowledge({ id: guardRuleId(rule), reason });
};

const NO_VPC =
  'The functions run outside a VPC and reach DynamoDB, OpenSearch and X-Ray over HTTPS with SigV4-signed ' +
  'requests, each role limited to the actions and paths it uses. A VPC would add NAT gateways (or an ' +
  'endpoint per service) and cold-start network interfaces without narrowing who may call what.';

/**
 * Records the accepted Control Tower findings. Two depend on the configuration: below a year of
 * `retentionDays` each log group that keeps it carries an acknowledgement (at a year or more the rule
 * passes), and so does a search domain smaller than three nodes in zones.
 */
export const acknowledgeControlTowerFindings = (
  stack: ControlTowerParts,
  config: Pick<JobsApiConfig, 'retentionDays' | 'searchInstanceCount' | 'searchZoneCount'>,
): void => {
  const { retentionDays } = config;
  for (const construct of stack.node.findAll()) {
    if (construct instanceof CfnFunction)
      acknowledge(construct, 'lambda_inside_vpc_check', `[CT.LAMBDA.PR.3] ${NO_VPC}`);
    if (!(construct instanceof CfnLogGroup)) continue;
    acknowledge(
      construct,
      'cloudwatch_log_group_encrypted_check',
      '[CT.CLOUDWATCH.PR.3] CloudWatch Logs encrypts every log group at rest with keys it manages. A customer ' +
        'managed KMS key would add a key policy to maintain and a monthly charge per key for a second gate on ' +
        'reading logs that IAM permissions on the log groups already guard.',
    );
    if (retentionDays < ONE_YEAR_IN_DAYS && construct.retentionInDays === retentionDays) {
      acknowledge(
        construct,
        'cloudwatch_log_group_retention_period_check',
        `[CT.CLOUDWATCH.PR.2] Logs are kept for the configured retentionDays (${retentionDays}): access logs ` +
          "hold callers' addresses, and function logs are for debugging, not an audit trail. Deploy with " +
          `-c retentionDays=${ONE_YEAR_IN_DAYS} (or more) where a year is required.`,
      );
    }
  }

  acknowledge(
    stack.searchDomain,
    'opensearch_in_vpc_only_check',
    '[CT.OPENSEARCH.PR.10] The functions that call the domain run outside a VPC, so its endpoint is public: ' +
      'every request must be SigV4-signed by a role its access policy names, over HTTPS with TLS 1.2 or later. ' +
      'A VPC would add NAT gateways and cold-start network interfaces without narrowing who may call what.',
  );
  acknowledge(
    stack.searchDomain,
    'opensearch_fine_grained_access_control_enabled_check',
    '[CT.OPENSEARCH.PR.15] Access is IAM only: the domain access policy admits SigV4-signed requests of the ' +
      "function roles, each on the index paths it uses. Fine-grained access control's internal users and " +
      'roles would be a second authorization system to keep in step with IAM.',
  );
  acknowledge(
    stack.searchDomain,
    'opensearch_audit_logging_enabled_check',
    '[CT.OPENSEARCH.PR.13] OpenSearch audit logs require fine-grained access control, which this domain does ' +
      "not use (see CT.OPENSEARCH.PR.15); CloudTrail records the domain's configuration changes.",
  );
  acknowledge(
    stack.searchDomain,
    'opensearch_https_required_check',
    '[CT.OPENSEARCH.PR.16] The rule accepts only Policy-Min-TLS-1-2-2019-07; the domain enforces HTTPS with ' +
      'Policy-Min-TLS-1-2-PFS-2023-10, which also requires TLS 1.2 or later and adds forward secrecy. The rule ' +
      'predates the stricter policy.',
  );
  if (config.searchZoneCount === 1 || config.searchInstanceCount < 3) {
    acknowledge(
      stack.searchDomain,
      'opensearch_data_node_fault_tolerance_check',
      `[CT.OPENSEARCH.PR.14] The context asks for ${config.searchInstanceCount} data node(s) in ` +
        `${config.searchZoneCount} zone(s), which only a development deployment should do; the production ` +
        'default is three nodes in three zones, which passes.',
    );
  }
  acknowledge(
    stack.restApi,
    'lambda_function_public_access_prohibited_check',
    '[CT.LAMBDA.PR.2] A false positive: each permission lets apigateway.amazonaws.com invoke a function only ' +
      "with a SourceArn naming this API's own execute-api ARN, but the rule accepts only a literal string or a " +
      'plain Ref/GetAtt there, and the ARN is built with Fn::Join.',
  );
  acknowledgeImageFindings(stack);
  acknowledge(
    stack.streamIndexer.deadLetterQueue,
    'sqs_dlq_check',
    '[CT.SQS.PR.1] This queue is itself the dead-letter destination of the stream event source; nothing ' +
      'consumes it, so a further dead-letter queue behind it would never receive anything.',
  );
  acknowledge(
    stack.eventPublishing.deadLetterQueue,
    'sqs_dlq_check',
    "[CT.SQS.PR.1] This queue is itself the dead-letter destination of the events function's stream event " +
      'source; nothing consumes it, so a further dead-letter queue behind it would never receive anything.',
  );
  acknowledge(
    stack.webhookDelivery.deadLetterQueue,
    'sqs_dlq_check',
    "[CT.SQS.PR.1] This queue is itself the dead-letter queue of the webhooks' queue; nothing consumes it, so a " +
      'further dead-letter queue behind it would never receive anything.',
  );
};

/** The pictures' buckets and their dead-letter queue. */
const acknowledgeImageFindings = (stack: ControlTowerParts): void => {
  const { bucket, accessLogs } = stack.imagesBucket;
  acknowledge(
    bucket,
    's3_bucket_default_encryption_kms_check',
    '[CT.S3.PR.10] Every object is encrypted at rest with S3-managed keys (AES-256). A KMS key would make each ' +
      'upload, download and rendition a KMS request too, add a key policy to keep in step with the roles, and ' +
      "give each role that signs URLs a KMS grant, for a second gate on reading pictures that the bucket's IAM " +
      'permissions (no public access, no ACLs, TLS only) already guard.',
  );
  acknowledge(
    accessLogs,
    's3_bucket_default_encryption_kms_check',
    '[CT.S3.PR.10] S3 delivers server access logs only to a bucket whose default encryption is S3-managed ' +
      '(SSE-S3); with a KMS default the logs would not arrive.',
  );
  acknowledge(
    bucket,
    's3_bucket_versioning_enabled_check',
    '[CT.S3.PR.11] Nothing the service writes replaces an object: every upload target has a key of its own (a ' +
      'fresh upload id), and so does each of its renditions. Versioning would only keep the bytes of a target ' +
      'used twice within its hour, at the price of storing them, for no reader.',
  );
  acknowledge(
    accessLogs,
    's3_bucket_versioning_enabled_check',
    '[CT.S3.PR.11] S3 writes each access log object once, under a new key, and the lifecycle rule expires it ' +
      'after retentionDays; versions would only keep expired logs longer.',
  );
  for (const target of [bucket, accessLogs]) {
    acknowledge(
      target,
      's3_bucket_object_lock_enabled_check',
      '[CT.S3.PR.9] Pictures must stay deletable (a customer may ask for theirs to be removed) and logs expire ' +
        'after retentionDays; Object Lock would make both undeletable for its retention period.',
    );
  }
  acknowledge(
    accessLogs,
    's3_bucket_logging_enabled_check',
    '[CT.S3.PR.2] This is the log bucket that receives the pictures bucket’s server access logs; logging it ' +
      'into itself would log its own log deliveries, and into another bucket would need that one logged in turn.',
  );
  acknowledge(
    accessLogs,
    's3_event_notifications_enabled_check',
    '[CT.S3.PR.4] Nothing acts on a new log object: the logs are read when someone investigates, with Athena or ' +
      'by download. The pictures bucket has its notification (uploads to the images function).',
  );
  acknowledge(
    stack.imageRenditions.invokePermission,
    'lambda_function_public_access_prohibited_check',
    '[CT.LAMBDA.PR.2] A false positive: the permission lets s3.amazonaws.com invoke the images function only ' +
      "with a SourceArn naming this stack's pictures bucket and a SourceAccount of this account, but the rule " +
      'accepts only a literal string or a plain Ref/GetAtt there, and the ARN is built with Fn::Join.',
  );
  acknowledge(
    stack.imageRenditions.deadLetterQueue,
    'sqs_dlq_check',
    "[CT.SQS.PR.1] This queue is itself the on-failure destination of the images function's upload events; " +
      'nothing consumes it, so a further dead-letter queue behind it would never receive anything.',
  );
};
