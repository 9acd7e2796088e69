/**
 * The search index's setup at deploy time: a CloudFormation custom resource backed by a function of its
 * own (`functions/handlers/search-index-setup.ts`) that sets the domain's `action.auto_create_index` so that
 * OpenSearch never creates an index under the alias's names by itself (functions/search/opensearch/auto-create.ts)
 * and runs the engine's first-index creation — the concrete index `{alias}-v0` with its mapping, carrying the
 * alias as its write index — unless the alias exists. The API's stage is created after it, so a new stage answers its first search from an existing
 * (empty) index. (The indexer needs no such ordering: a bulk that finds no alias creates the same index.)
 *
 * Why a custom resource on our own function rather than an `aws-cdk-lib/triggers` Trigger: a Trigger
 * invokes the function through a provider function the CDK adds to the stack (its own runtime, an
 * AWS-managed execution policy, a log group nobody sets a retention on), which the stack's checks would
 * have to accept for a one-line call. Our function answers CloudFormation itself
 * (`functions/aws/custom-resource.ts`), is built, traced and logged like every other function of the
 * stack, and is the only thing that runs; `serviceTimeout` bounds how long CloudFormation waits should it
 * never answer.
 */
import { CustomResource, Duration, Validations } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { autoCreateRule } from '../functions/search/opensearch/auto-create';
import { HandlerFunction } from './handler-function';
import { XRAY_REASON } from './nag-suppressions';
import type { SearchDomain } from './search-domain';

export interface SearchIndexSetupProps {
  domain: SearchDomain;
  /** The functions' environment (the domain's URL and the alias's name among it). */
  environment: Record<string, string>;
  detailedTracing: boolean;
  logRetention: RetentionDays;
}

/**
 * How long the setup function may run: a look at the alias and one index creation (each request 9 s at
 * most), tried up to four times with pauses of 2, 4 and 8 s while a just-created domain answers as
 * unavailable.
 */
export const SETUP_TIMEOUT = Duration.minutes(2);

/** The deploy-time creation of the search index and its alias. */
export class SearchIndexSetup extends Construct {
  public readonly handler: HandlerFunction;
  public readonly resource: CustomResource;

  public constructor(scope: Construct, id: string, props: SearchIndexSetupProps) {
    super(scope, id);
    const alias = props.domain.indexName;
    this.handler = new HandlerFunction(this, 'Handler', {
      module: 'search-index-setup',
      logicalId: 'SearchIndexSetupFunction',
      description: 'Jobs API search index setup (deploy time)',
      memoryMiB: 256,
      timeout: SETUP_TIMEOUT,
      detailedTracing: props.detailedTracing,
      // An index creation waits for its shards: give each request the longest budget the config allows.
      environment: { ...props.environment, DEPENDENCY_TIMEOUT_MS: '9000' },
      logRetention: props.logRetention,
    });
    // It refuses the automatic creation of the alias's names (PUT /_cluster/settings), looks for the alias
    // (HEAD /{alias}) and creates the first index with it (PUT /{alias}-v0).
    props.domain.grantPaths(this.handler.role, ['es:ESHttpHead'], [alias]);
    props.domain.grantPaths(this.handler.role, ['es:ESHttpPut'], [`${alias}-v0`, '_cluster/settings']);

    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: this.handler.function.functionArn,
      resourceType: 'Custom::SearchIndexSetup',
      serviceTimeout: Duration.minutes(5),
      // A new endpoint (a replaced domain), alias or auto-creation rule runs the setup again (on a stack
      // deployed before the rule existed, the update that adds it sets it).
      properties: { Endpoint: props.domain.url, Alias: alias, AutoCreateIndex: autoCreateRule(alias) },
    });

    Validations.of(this.handler).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: XRAY_REASON });
  }

  /** Makes these parts of the stack wait for the index: they may only serve once it exists. */
  public precede(...parts: Construct[]): void {
    for (const part of parts) part.node.addDependency(this.resource);
  }
}
