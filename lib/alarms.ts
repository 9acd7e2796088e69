/**
 * The stack's alarms: function errors and throttles, the indexer and the events function falling behind the
 * stream, stream records, upload events and webhook deliveries given up on, a share of API 5xx answers, many refused
 * `POST /sessions` requests, audit records the audit log group refused and an unhealthy search domain (red,
 * writes blocked, short of storage or of heap). Each notifies an SNS topic when it fires and when it recovers:
 * the stack's own topic (with an optional email subscription), or an existing topic that replaces it.
 */
import { Aws, Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Domain } from 'aws-cdk-lib/aws-opensearchservice';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AUDIT_WRITE_FAILED_METRIC } from '../functions/auth/audit';
import { WEBHOOK_DELIVERIES_FAILED_METRIC } from '../functions/webhooks/delivery';
import { POWERTOOLS_ENVIRONMENT } from './handler-function';

/**
 * Refused `POST /sessions` requests (wrong or revoked secrets, disabled clients, bad bodies) in five minutes
 * that raise the alarm: a leaked client token being tried, or an integration gone wrong.
 */
export const REFUSED_SESSION_REQUESTS_THRESHOLD = 50;

/**
 * The fields of the line the functions log for every request they refuse (the shared chain's error
 * formatter, with the Lambda context's keys): the refused-sessions metric counts the sessions function's
 * lines with these values. API Gateway's own per-method metrics cannot serve: the `/sessions` resource's
 * one method is `ANY` (its function answers other methods with 405), so a `Method=POST` dimension names
 * no method the stage has.
 */
export const REFUSED_SESSION_LOG_LINE = { message: 'Request refused', method: 'POST' } as const;

/** The metric the stack derives from those lines: its namespace, its name and its one dimension. */
export const REFUSED_SESSIONS_METRIC = {
  namespace: 'JobsApi',
  metricName: 'SessionsRefused',
  /** The function's name, from the line's `function_name` key. */
  dimension: 'FunctionName',
} as const;

/** How far behind its stream the indexer (or the events function) may fall before the alarm fires, in milliseconds. */
export const ITERATOR_AGE_THRESHOLD_MS = 60_000;

/**
 * When API 5xx answers page: a share of the requests of five minutes, and only when those five minutes saw
 * enough requests for a share to mean something. One `503` on a quiet stage (a cold start that met a slow
 * DynamoDB, say) is not an outage; 5 % of at least 100 requests (five or more failures) is. Below the minimum
 * the expression is 0, so a quiet stage never pages for 5xx, whatever its share.
 */
export const API_5XX_ALARM = {
  /** The share of 5xx answers, in percent of the window's requests, that fires the alarm. */
  thresholdPercent: 5,
  /** The fewest requests in the window for the share to count. */
  minimumRequests: 100,
  /** The window, in minutes. */
  windowMinutes: 5,
} as const;

/**
 * When the search domain runs short of storage or heap, after AWS's recommended OpenSearch alarms. Free
 * storage: the lowest node under a quarter of its volume (AWS recommends 25 % of each node's storage rather
 * than a fixed 20 GiB; OpenSearch blocks writes to an index once a node passes its flood-stage watermark, 95 %
 * used). JVM memory pressure: the highest node at 80 % or more for fifteen minutes, three five-minute periods
 * (past 92 % OpenSearch rejects requests; sustained pressure this high means the nodes need more memory).
 */
export const SEARCH_CAPACITY_ALARMS = {
  /** The fraction of a node's volume below which free storage fires the alarm. */
  freeStorageFraction: 0.25,
  /** The JVM memory pressure, in percent, that fires the alarm when it lasts. */
  jvmMemoryPressurePercent: 80,
  /** Five-minute periods the pressure must last. */
  jvmMemoryPressurePeriods: 3,
} as const;

/**
 * The share of the API's answers that were 5xx, in percent, over {@link API_5XX_ALARM}'s window; 0 when the
 * window saw fewer requests than its minimum (and when it saw none: `FILL` makes a missing count 0). The
 * `Api5xx` alarm watches it, and the dashboard shows it.
 */
export const apiServerErrorRate = (api: RestApi): MathExpression => {
  const period = Duration.minutes(API_5XX_ALARM.windowMinutes);
  return new MathExpression({
    expression:
      `IF(FILL(requests, 0) >= ${API_5XX_ALARM.minimumRequests}, ` + '100 * FILL(errors, 0) / FILL(requests, 0), 0)',
    usingMetrics: {
      requests: api.metricCount({ statistic: 'Sum', period }),
      errors: api.metricServerError({ statistic: 'Sum', period }),
    },
    label: '5xx answers (% of requests)',
    period,
  });
};

/** The free storage, in MiB (the unit of `FreeStorageSpace`), below which a node of this volume alarms. */
export const freeStorageThresholdMiB = (volumeSizeGiB: number): number =>
  Math.floor(volumeSizeGiB * 1024 * SEARCH_CAPACITY_ALARMS.freeStorageFraction);

export interface JobsApiAlarmsProps {
  /** Every function, by a short name used in the alarm ids. */
  functions: Record<string, IFunction>;
  /** The function serving `POST /sessions`, whose log lines the refused-sessions metric counts. */
  sessions: LambdaFunction;
  indexer: IFunction;
  deadLetterQueue: IQueue;
  /** Where the upload events the images function gave up on wait. */
  imagesDeadLetterQueue: IQueue;
  /** The events function, and where the stream records whose events it gave up on wait. */
  events: IFunction;
  eventsDeadLetterQueue: IQueue;
  /** Where the webhook events and deliveries the webhooks' sender gave up on wait. */
  webhooksDeadLetterQueue: IQueue;
  api: RestApi;
  domain: Domain;
  /** The EBS volume of each data node, in GiB: the free-storage alarm fires below a share of it. */
  searchVolumeSizeGiB: number;
  /** An existing SNS topic every alarm notifies; without it the construct creates one. */
  topicArn: string | undefined;
  /** An email address subscribed to the created topic. */
  email: string | undefined;
  /** The created topic's display name (the sender name of its emails). */
  topicDisplayName: string;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * A count the functions emit (EMF, the service's namespace and Powertools' `service` dimension), summed over five
 * minutes.
 */
const serviceCount = (metricName: string): IMetric =>
  new Metric({
    namespace: POWERTOOLS_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: POWERTOOLS_ENVIRONMENT.POWERTOOLS_SERVICE_NAME },
    statistic: 'Sum',
    period: FIVE_MINUTES,
  });

/**
 * Audit records the audit log group refused: the metric the functions emit for each one, which then lives only in
 * the writer's own log group.
 */
export const auditWriteFailures = (): IMetric => serviceCount(AUDIT_WRITE_FAILED_METRIC);

/** Webhook deliveries the sender gave up on: the metric it emits for each one. */
export const webhookDeliveryFailures = (): IMetric => serviceCount(WEBHOOK_DELIVERIES_FAILED_METRIC);

/** The alarms of the stack. */
export class JobsApiAlarms extends Construct {
  public readonly alarms: Alarm[] = [];
  /** The topic every alarm notifies. */
  public readonly topic: ITopic;
  private readonly action: SnsAction;

  public constructor(scope: Construct, id: string, props: JobsApiAlarmsProps) {
    super(scope, id);
    this.topic =
      props.topicArn === undefined ? this.createTopic(props) : Topic.fromTopicArn(this, 'Topic', props.topicArn);
    this.action = new SnsAction(this.topic);

    for (const [name, fn] of Object.entries(props.functions)) {
      this.atLeastOnce(`${name}Errors`, `The ${name} function failed`, fn.metricErrors({ period: FIVE_MINUTES }));
      this.atLeastOnce(
        `${name}Throttles`,
        `The ${name} function was throttled`,
        fn.metricThrottles({ period: FIVE_MINUTES }),
      );
    }
    this.add(
      'IndexerIteratorAge',
      'Search lags more than a minute behind the jobs table',
      props.indexer.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      ITERATOR_AGE_THRESHOLD_MS,
      5,
    );
    this.atLeastOnce(
      'IndexerDeadLetters',
      'Stream records the indexer gave up on are waiting in the dead-letter queue; run reindex',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
    );
    this.atLeastOnce(
      'ImagesDeadLetters',
      'Upload events the images function gave up on are waiting in its dead-letter queue; redrive them',
      props.imagesDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: FIVE_MINUTES,
      }),
    );
    this.add(
      'EventsIteratorAge',
      'Events lag more than a minute behind the jobs table',
      props.events.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      ITERATOR_AGE_THRESHOLD_MS,
      5,
    );
    this.atLeastOnce(
      'EventsDeadLetters',
      'Stream records whose events the events function gave up on are waiting in its dead-letter queue; ' +
        'publish them again from the stream within 24 hours',
      props.eventsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: FIVE_MINUTES,
      }),
    );
    this.atLeastOnce(
      'WebhooksDeadLetters',
      "Webhook events or deliveries the webhooks' sender gave up on are waiting in its dead-letter queue; " +
        'redrive them to the webhooks queue once the cause is fixed',
      props.webhooksDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: FIVE_MINUTES,
      }),
    );
    this.atLeastOnce(
      'WebhookDeliveriesFailed',
      'A webhook delivery was given up on: its endpoint did not take the event within 24 hours, or failed long ' +
        'enough to be disabled (GET /webhooks/{webhookId}/deliveries lists it as failed)',
      webhookDeliveryFailures(),
    );
    this.add(
      'Api5xx',
      `${API_5XX_ALARM.thresholdPercent} % or more of the API's answers in ${API_5XX_ALARM.windowMinutes} minutes ` +
        `were 5xx (counted from ${API_5XX_ALARM.minimumRequests} requests on)`,
      apiServerErrorRate(props.api),
      API_5XX_ALARM.thresholdPercent,
      1,
    );
    this.add(
      'SessionsRefused',
      'Many POST /sessions requests were refused (a leaked client token tried, or a broken integration)',
      this.refusedSessions(props.sessions),
      REFUSED_SESSION_REQUESTS_THRESHOLD,
      1,
    );
    this.atLeastOnce(
      'AuditWriteFailed',
      'An audit record was refused by the audit log group and kept only in the sessions function’s log, ' +
        'which is deleted with the stack',
      auditWriteFailures(),
    );
    this.atLeastOnce(
      'SearchClusterRed',
      'The search domain has unassigned primary shards',
      props.domain.metricClusterStatusRed({ period: Duration.minutes(1) }),
    );
    this.atLeastOnce(
      'SearchWritesBlocked',
      'The search domain blocks writes',
      props.domain.metricClusterIndexWritesBlocked({ period: Duration.minutes(1) }),
    );
    this.addSearchCapacityAlarms(props.domain, props.searchVolumeSizeGiB);
    if (this.topic instanceof Topic) this.letAlarmsPublish(this.topic);
  }

  /** The search domain running short of storage (the lowest node) or of heap (the highest node, for a while). */
  private addSearchCapacityAlarms(domain: Domain, volumeSizeGiB: number): void {
    const thresholdMiB = freeStorageThresholdMiB(volumeSizeGiB);
    this.add(
      'SearchFreeStorageLow',
      `A search node has ${thresholdMiB} MiB of free storage or less (a quarter of its ${volumeSizeGiB} GiB volume)`,
      domain.metricFreeStorageSpace({ statistic: 'Minimum', period: Duration.minutes(1) }),
      thresholdMiB,
      1,
      ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
    );
    const { jvmMemoryPressurePercent, jvmMemoryPressurePeriods } = SEARCH_CAPACITY_ALARMS;
    this.add(
      'SearchJvmMemoryPressure',
      `A search node's JVM memory pressure stayed at ${jvmMemoryPressurePercent} % or more for ` +
        `${jvmMemoryPressurePeriods * 5} minutes`,
      domain.metricJVMMemoryPressure({ statistic: 'Maximum', period: FIVE_MINUTES }),
      jvmMemoryPressurePercent,
      jvmMemoryPressurePeriods,
    );
  }

  /**
   * A topic policy replaces SNS's default one, and `enforceSSL` writes a policy holding only its deny
   * without TLS: nothing would let CloudWatch publish, and every alarm action would fail. This statement
   * lets CloudWatch publish for this stack's alarms only (each by its ARN, in this account), beside the
   * TLS deny (CloudWatch publishes over TLS).
   */
  private letAlarmsPublish(topic: Topic): void {
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnEquals: { 'aws:SourceArn': this.alarms.map((alarm) => alarm.alarmArn) },
        },
      }),
    );
  }

  /** The count of refused `POST /sessions` requests, from the sessions function's log lines. */
  private refusedSessions(sessions: LambdaFunction): IMetric {
    const logGroup = sessions.logGroup;
    const { namespace, metricName, dimension } = REFUSED_SESSIONS_METRIC;
    const filter = new MetricFilter(this, 'SessionsRefusedFilter', {
      logGroup,
      filterPattern: FilterPattern.all(
        ...Object.entries(REFUSED_SESSION_LOG_LINE).map(([key, value]) =>
          FilterPattern.stringValue(`$.${key}`, '=', value),
        ),
      ),
      metricNamespace: namespace,
      metricName,
      metricValue: '1',
      dimensions: { [dimension]: '$.function_name' },
    });
    return filter.metric({
      dimensionsMap: { [dimension]: sessions.functionName },
      statistic: 'Sum',
      period: FIVE_MINUTES,
    });
  }

  private createTopic(props: JobsApiAlarmsProps): Topic {
    const topic = new Topic(this, 'Topic', { displayName: props.topicDisplayName, enforceSSL: true });
    if (props.email !== undefined) topic.addSubscription(new EmailSubscription(props.email));
    return topic;
  }

  private atLeastOnce(id: string, description: string, metric: IMetric): void {
    this.add(id, description, metric, 1, 1);
  }

  private add(
    id: string,
    description: string,
    metric: IMetric,
    threshold: number,
    periods: number,
    comparison: ComparisonOperator = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  ): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: periods,
      comparisonOperator: comparison,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }
}
