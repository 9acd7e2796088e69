/**
 * The Jobs API stack: the tables, the search domain, one function per handler, the REST API (with
 * optional per-client limits), the indexer's and the events function's stream subscriptions, the stage's event
 * bus, the webhooks' queue and its sender, alarms, a dashboard, and the outputs tools use to find it all.
 */
import { Aws, CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type ApiFunctionName, apiFunctions, methodsOf, pathsOf, ROUTES, routeFor } from '../functions/http/routes';
import { JobsApiAlarms } from './alarms';
import { AuditLog } from './audit-log';
import { AuthTable } from './auth-table';
import { acknowledgeControlTowerFindings } from './control-tower';
import { JobsApiDashboard } from './dashboard';
import { EventPublishing } from './event-publishing';
import { grantLeastPrivilege } from './function-permissions';
import { HandlerFunction, NATIVE_NODE_MODULES } from './handler-function';
import { IMAGES_MEMORY_MIB, ImageRenditions } from './image-renditions';
import { ImagesBucket, UPLOADS_PREFIX } from './images-bucket';
import { JobsTable } from './jobs-table';
import { acknowledgeAcceptedFindings } from './nag-suppressions';
import { ApiRateLimits } from './rate-limits';
import { OperatorPolicy } from './operator-policy';
import { JobsRestApi } from './rest-api';
import { SearchDomain } from './search-domain';
import { SearchIndexSetup } from './search-index-setup';
import type { JobsApiConfig } from './stack-config';
import { STACK_OUTPUTS } from './stack-outputs';
import { INDEX_WRITE_TIMEOUT, StreamIndexer } from './stream-indexer';
import { TableDeletionProtection } from './table-deletion-protection';
import { WebhookDelivery } from './webhook-delivery';
import {
  API_DEPENDENCY_TIMEOUT,
  API_FUNCTION_TIMEOUT,
  EVENTS_TIMEOUT,
  IMAGES_TIMEOUT,
  INDEXER_TIMEOUT,
  INTEGRATION_TIMEOUT,
  WEBHOOKS_SENDER_TIMEOUT,
} from './timeouts';

/** The OpenSearch alias the functions use (created at deploy time by {@link SearchIndexSetup}). */
export const SEARCH_INDEX_NAME = 'jobs';

export { API_DEPENDENCY_TIMEOUT, API_FUNCTION_TIMEOUT, INDEXER_TIMEOUT, INTEGRATION_TIMEOUT };

/**
 * The domain's name: `jobs-<stage>-` and the first group of the stack's own id, a UUID CloudFormation
 * draws when it creates the stack. Unique per stack instance, so a stage deployed again after
 * `cdk destroy` never collides with its previous domain (which may still be deleting), yet stable for
 * the stack's life and known without referring to the domain itself, as its access policy must.
 * At most 28 characters: `jobs-` + 14 of the stage + `-` + 8.
 */
export const searchDomainName = (stage: string): string =>
  Fn.join('', [
    `jobs-${stage.slice(0, 14).replace(/-+$/, '')}-`,
    Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID)))),
  ]);

/** A handler module's name as a construct name: `search-fields` → `SearchFields`. */
type PascalCase<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalCase<Tail>}`
  : Capitalize<Name>;

/**
 * The functions of the stack, by construct name: one per API function of the route table, the indexer, the
 * images function, the events function and the webhooks' sender.
 */
export type FunctionName = PascalCase<ApiFunctionName> | 'Indexer' | 'Images' | 'Events' | 'WebhooksSender';

/** The name of a handler module's function: `search-fields` → `SearchFields`. */
export const functionNameOf = (module: string): FunctionName =>
  module
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('') as FunctionName;

/** The API endpoints of the route table (one method of one path each), with their function's name. */
export const API_ENDPOINTS = ROUTES.map((route) => ({
  name: functionNameOf(route.functionName),
  module: route.functionName,
  path: route.path,
  method: route.method,
  description: `${route.method} ${route.path}`,
}));

/** The API's paths, each with every method it answers (the dashboard shows one line per path). */
export const API_PATHS = pathsOf().map((path) => ({ path, description: `${methodsOf(path).join(', ')} ${path}` }));

/** The API functions: one per handler module, serving every endpoint of the route table that names it. */
export const API_FUNCTIONS = apiFunctions().map(({ functionName, routes }) => ({
  name: functionNameOf(functionName),
  module: functionName,
  description: routes.map((route) => `${route.method} ${route.path}`).join(' and '),
}));

export interface JobsApiStackProps extends StackProps {
  config: JobsApiConfig;
}

/** The whole deployment. */
export class JobsApiStack extends Stack {
  public readonly jobsTable: JobsTable;
  public readonly authTable: AuthTable;
  public readonly auditLog: AuditLog;
  public readonly searchDomain: SearchDomain;
  /** The pictures' private bucket. */
  public readonly imagesBucket: ImagesBucket;
  /** The bucket's events to the images function, and its dead-letter queue. */
  public readonly imageRenditions: ImageRenditions;
  /** Creates the search index and its alias at deploy time, before the API serves. */
  public readonly searchIndexSetup: SearchIndexSetup;
  /** Switches the tables' deletion protection on (or off) as the deployment's last step. */
  public readonly tableDeletionProtection: TableDeletionProtection;
  public readonly functions: Record<FunctionName, HandlerFunction>;
  /** The key that signs the page cursors of `GET /jobs/{id}/files`, generated by Secrets Manager. */
  public readonly cursorKey: Secret;
  public readonly restApi: JobsRestApi;
  public readonly streamIndexer: StreamIndexer;
  /** The stage's event bus, the events function's stream subscription and its dead-letter queue. */
  public readonly eventPublishing: EventPublishing;
  /** The webhooks' queue, its dead-letter queue, the bus's rule feeding it and the sender's event source. */
  public readonly webhookDelivery: WebhookDelivery;
  public readonly alarms: JobsApiAlarms;
  /** What an operator attaches to run the CLI against this stack. */
  public readonly operatorPolicy: OperatorPolicy;
  public readonly dashboard: JobsApiDashboard;
  /** The per-client limits, when the configuration sets any. */
  public readonly rateLimits: ApiRateLimits | undefined;

  public constructor(scope: Construct, id: string, props: JobsApiStackProps) {
    super(scope, id, props);
    const { config } = props;
    const logRetention = config.retentionDays as RetentionDays;

    this.jobsTable = new JobsTable(this, 'JobsTable', { deletionProtection: config.deletionProtection });
    this.authTable = new AuthTable(this, 'AuthTable', { deletionProtection: config.deletionProtection });
    this.searchDomain = new SearchDomain(this, 'SearchDomain', {
      domainName: searchDomainName(config.stage),
      indexName: SEARCH_INDEX_NAME,
      instanceType: config.searchInstanceType,
      instanceCount: config.searchInstanceCount,
      zoneCount: config.searchZoneCount,
      volumeSizeGiB: config.searchVolumeSizeGiB,
      logRetention,
      retain: config.retainSearchDomain,
    });

    this.auditLog = new AuditLog(this, 'AuditLog', { retentionDays: config.auditRetentionDays });
    this.imagesBucket = new ImagesBucket(this, 'ImagesBucket', {
      stage: config.stage,
      retain: config.deletionProtection,
      accessLogRetentionDays: config.retentionDays,
      corsOrigins: config.imagesCorsOrigins,
    });
    const imagesBucket = { IMAGES_BUCKET: this.imagesBucket.bucketName };

    const environment = {
      JOBS_TABLE: this.jobsTable.table.tableName,
      AUTH_TABLE: this.authTable.table.tableName,
      SEARCH_ENGINE: 'opensearch',
      OPENSEARCH_URL: this.searchDomain.url,
      OPENSEARCH_INDEX: SEARCH_INDEX_NAME,
      AUTH_CACHE_TTL_MS: '60000',
      DEPENDENCY_TIMEOUT_MS: '3000',
    };
    this.cursorKey = new Secret(this, 'CursorKey', {
      description: 'Jobs API: the HMAC key that signs the page cursors of GET /jobs/{id}/files',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    /** Settings only some functions need. */
    const ownEnvironment: Partial<Record<FunctionName, Record<string, string>>> = {
      // The job functions sign the pictures' URLs: uploads (writes), downloads (reads).
      JobsRead: { CURSOR_KEY_SECRET_ARN: this.cursorKey.secretArn, ...imagesBucket },
      JobsWrite: imagesBucket,
      // Only the sessions function writes audit records.
      Sessions: { AUDIT_LOG_GROUP: this.auditLog.logGroup.logGroupName },
    };
    const functions: Partial<Record<FunctionName, HandlerFunction>> = {};
    for (const endpoint of API_FUNCTIONS) {
      functions[endpoint.name] = new HandlerFunction(this, endpoint.name, {
        module: endpoint.module,
        logicalId: `${endpoint.name}Function`,
        description: `Jobs API ${endpoint.description}`,
        memoryMiB: config.apiMemoryMiB,
        timeout: API_FUNCTION_TIMEOUT,
        detailedTracing: config.detailedTracing,
        environment: {
          ...environment,
          DEPENDENCY_TIMEOUT_MS: String(API_DEPENDENCY_TIMEOUT.toMilliseconds()),
          ...ownEnvironment[endpoint.name],
        },
        logRetention,
      });
    }
    functions.Indexer = new HandlerFunction(this, 'Indexer', {
      module: 'indexer',
      logicalId: 'IndexerFunction',
      description: 'Jobs API search indexer (jobs table stream)',
      memoryMiB: 512,
      timeout: INDEXER_TIMEOUT,
      detailedTracing: config.detailedTracing,
      environment: { ...environment, INDEX_WRITE_TIMEOUT_MS: String(INDEX_WRITE_TIMEOUT.toMilliseconds()) },
      logRetention,
    });
    functions.Images = new HandlerFunction(this, 'Images', {
      module: 'images',
      logicalId: 'ImagesFunction',
      description: 'Jobs API images (previews and thumbnails of uploads)',
      memoryMiB: IMAGES_MEMORY_MIB,
      timeout: IMAGES_TIMEOUT,
      detailedTracing: config.detailedTracing,
      environment: { ...environment, ...imagesBucket },
      logRetention,
      nativeModules: { modules: ['sharp'], nodeModules: NATIVE_NODE_MODULES },
      reservedConcurrency: config.imagesConcurrency,
    });
    functions.Events = new HandlerFunction(this, 'Events', {
      module: 'events',
      logicalId: 'EventsFunction',
      description: 'Jobs API events (jobs table stream to the event bus)',
      memoryMiB: 512,
      timeout: EVENTS_TIMEOUT,
      detailedTracing: config.detailedTracing,
      environment,
      logRetention,
    });
    functions.WebhooksSender = new HandlerFunction(this, 'WebhooksSender', {
      module: 'webhooks-sender',
      logicalId: 'WebhooksSenderFunction',
      description: "Jobs API webhooks' sender (the webhooks queue to the registered endpoints)",
      memoryMiB: 256,
      timeout: WEBHOOKS_SENDER_TIMEOUT,
      detailedTracing: config.detailedTracing,
      environment,
      logRetention,
    });
    this.functions = functions as Record<FunctionName, HandlerFunction>;

    this.restApi = new JobsRestApi(this, 'RestApi', {
      name: `jobs-api-${config.stage}`,
      stageName: config.stage,
      routes: API_ENDPOINTS.map((endpoint) => ({
        path: endpoint.path,
        method: endpoint.method,
        handler: this.functions[endpoint.name].function,
      })),
      throttleRateLimit: config.throttleRateLimit,
      throttleBurstLimit: config.throttleBurstLimit,
      logRetention,
      integrationTimeout: INTEGRATION_TIMEOUT,
    });
    this.eventPublishing = new EventPublishing(this, 'EventPublishing', {
      stage: config.stage,
      table: this.jobsTable.table,
      publisher: this.functions.Events.function,
      // The stage's base URL without its trailing slash, as the local stack gives its own address.
      source: `https://${this.restApi.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${config.stage}`,
      deadLetterRetentionDays: config.retentionDays,
    });
    this.webhookDelivery = new WebhookDelivery(this, 'WebhookDelivery', {
      bus: this.eventPublishing.bus,
      sender: this.functions.WebhooksSender.function,
      deadLetterRetentionDays: config.retentionDays,
    });

    grantLeastPrivilege({
      functions: this.functions,
      eventBus: this.eventPublishing.bus,
      webhookQueue: this.webhookDelivery.queue,
      jobsTable: this.jobsTable,
      authTable: this.authTable,
      auditLog: this.auditLog,
      searchDomain: this.searchDomain,
      searchIndex: SEARCH_INDEX_NAME,
      cursorKey: this.cursorKey,
      imagesBucket: this.imagesBucket,
    });
    this.operatorPolicy = new OperatorPolicy(this, 'OperatorPolicy', {
      jobsTable: this.jobsTable.table,
      authTable: this.authTable.table,
      auditLogGroup: this.auditLog.logGroup,
      domain: this.searchDomain.domain,
      indexName: SEARCH_INDEX_NAME,
      uploadObjectsArn: this.imagesBucket.objectsArn(UPLOADS_PREFIX),
    });

    this.imageRenditions = new ImageRenditions(this, 'ImageRenditions', {
      images: this.imagesBucket,
      renderer: this.functions.Images.function,
      deadLetterRetentionDays: config.retentionDays,
    });
    this.streamIndexer = new StreamIndexer(this, 'StreamIndexer', {
      table: this.jobsTable.table,
      indexer: this.functions.Indexer.function,
      deadLetterRetentionDays: config.retentionDays,
    });
    this.rateLimits =
      config.ipRateLimit === undefined && config.clientRateLimit === undefined
        ? undefined
        : new ApiRateLimits(this, 'RateLimits', {
            name: `jobs-api-${config.stage}`,
            stageArn: this.restApi.api.deploymentStage.stageArn,
            ipRateLimit: config.ipRateLimit,
            clientRateLimit: config.clientRateLimit,
            sessionRateLimit: config.sessionRateLimit,
          });
    this.searchIndexSetup = new SearchIndexSetup(this, 'SearchIndexSetup', {
      domain: this.searchDomain,
      environment,
      detailedTracing: config.detailedTracing,
      logRetention,
    });
    this.searchIndexSetup.precede(this.restApi.api.deploymentStage);
    this.tableDeletionProtection = new TableDeletionProtection(this, 'TableDeletionProtection', {
      tables: [this.jobsTable.table, this.authTable.table],
      enabled: config.deletionProtection,
      environment,
      detailedTracing: config.detailedTracing,
      logRetention,
    });

    // Alarms and dashboard watch every function of the stack, the deploy-time setup's too.
    const functionsByName = {
      ...Object.fromEntries(Object.entries(this.functions).map(([name, fn]) => [name, fn.function])),
      SearchIndexSetup: this.searchIndexSetup.handler.function,
      TableProtection: this.tableDeletionProtection.handler.function,
    };
    this.alarms = new JobsApiAlarms(this, 'Alarms', {
      functions: functionsByName,
      sessions: this.functions[functionNameOf(routeFor('/sessions').functionName)].function,
      indexer: this.functions.Indexer.function,
      deadLetterQueue: this.streamIndexer.deadLetterQueue,
      imagesDeadLetterQueue: this.imageRenditions.deadLetterQueue,
      events: this.functions.Events.function,
      eventsDeadLetterQueue: this.eventPublishing.deadLetterQueue,
      webhooksDeadLetterQueue: this.webhookDelivery.deadLetterQueue,
      api: this.restApi.api,
      domain: this.searchDomain.domain,
      searchVolumeSizeGiB: config.searchVolumeSizeGiB,
      topicArn: config.alarmTopicArn,
      email: config.alarmEmail,
      topicDisplayName: `Jobs API ${config.stage} alarms`,
    });

    this.dashboard = new JobsApiDashboard(this, 'Dashboard', {
      dashboardName: `jobs-api-${config.stage}-${Aws.REGION}`,
      api: this.restApi.api,
      stageName: config.stage,
      endpoints: API_PATHS.map((endpoint) => ({ path: endpoint.path, label: endpoint.description })),
      functions: functionsByName,
      indexer: this.functions.Indexer.function,
      deadLetterQueue: this.streamIndexer.deadLetterQueue,
      images: this.functions.Images.function,
      imagesDeadLetterQueue: this.imageRenditions.deadLetterQueue,
      events: this.functions.Events.function,
      eventsDeadLetterQueue: this.eventPublishing.deadLetterQueue,
      webhooksSender: this.functions.WebhooksSender.function,
      webhooksDeadLetterQueue: this.webhookDelivery.deadLetterQueue,
      domain: this.searchDomain.domain,
      searchVolumeSizeGiB: config.searchVolumeSizeGiB,
    });

    this.addOutputs();
    acknowledgeAcceptedFindings(this);
    acknowledgeControlTowerFindings(this, config);
    // Last: the tables' deletion protection waits for every other resource (a failed first deployment
    // rolls back through unprotected tables).
    this.tableDeletionProtection.comeLast(this);
  }

  private addOutputs(): void {
    const output = (key: string, value: string, description: string): void => {
      new CfnOutput(this, key, { value, description });
    };
    output(STACK_OUTPUTS.jobsTable, this.jobsTable.table.tableName, 'Jobs table name (JOBS_TABLE)');
    output(STACK_OUTPUTS.authTable, this.authTable.table.tableName, 'Auth table name (AUTH_TABLE)');
    output(STACK_OUTPUTS.opensearchUrl, this.searchDomain.url, 'OpenSearch endpoint (OPENSEARCH_URL)');
    output(STACK_OUTPUTS.opensearchDomain, this.searchDomain.domain.domainName, 'OpenSearch domain name');
    output(STACK_OUTPUTS.opensearchIndex, SEARCH_INDEX_NAME, 'OpenSearch index (OPENSEARCH_INDEX)');
    output(STACK_OUTPUTS.apiUrl, this.restApi.url, 'Base URL of the API');
    output(
      STACK_OUTPUTS.operatorPolicyArn,
      this.operatorPolicy.policy.managedPolicyArn,
      'Attach to whoever runs npm run cli -- … --stack',
    );
    output(
      STACK_OUTPUTS.auditLogGroup,
      this.auditLog.logGroup.logGroupName,
      'Audit records of clients, secrets and sessions (kept when the stack is deleted)',
    );
    output(
      STACK_OUTPUTS.deadLetterQueueUrl,
      this.streamIndexer.deadLetterQueue.queueUrl,
      'Stream records the indexer gave up on',
    );
    output(STACK_OUTPUTS.imagesBucket, this.imagesBucket.bucketName, "The pictures' private bucket (IMAGES_BUCKET)");
    output(
      STACK_OUTPUTS.imagesDeadLetterQueueUrl,
      this.imageRenditions.deadLetterQueue.queueUrl,
      'Upload events the images function gave up on',
    );
    const events = this.eventPublishing;
    output(STACK_OUTPUTS.eventBusName, events.bus.eventBusName, "The stage's event bus (EVENT_BUS_NAME)");
    output(STACK_OUTPUTS.eventBusArn, events.bus.eventBusArn, "The stage's event bus's ARN, for rules");
    output(STACK_OUTPUTS.eventsDeadLetterQueueUrl, events.deadLetterQueue.queueUrl, 'Stream records not published');
    output(
      STACK_OUTPUTS.webhooksDeadLetterQueueUrl,
      this.webhookDelivery.deadLetterQueue.queueUrl,
      'Webhook events and deliveries the sender gave up on',
    );
    output(
      STACK_OUTPUTS.cursorKeySecretArn,
      this.cursorKey.secretArn,
      'The secret that signs file-page cursors (CURSOR_KEY_SECRET_ARN)',
    );
    output(
      STACK_OUTPUTS.dashboardUrl,
      `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards/dashboard/${this.dashboard.dashboard.dashboardName}`,
      'The CloudWatch dashboard of the stack',
    );
  }
}
