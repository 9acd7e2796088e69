/**
 * The operator's CloudWatch dashboard: what the API answers per endpoint (requests, p50/p99 latency,
 * 4xx, 5xx), what the functions do (errors, throttles, concurrency), how far search lags behind the jobs
 * table (the stream's iterator age) and what it gave up on (dead letters), the search domain's health
 * (cluster status, JVM memory pressure, free storage), the pictures (uploads processed, their duration, the
 * upload events given up on), the events (stream batches, how far behind the stream, what was given up on), and the
 * webhooks (the sender's batches and errors, what it gave up on).
 * Endpoints and functions come from the stack's own lists, so a new endpoint appears without a change here.
 * docs/deploy.md says what healthy looks like.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Dashboard,
  GraphWidget,
  type GraphWidgetProps,
  type IMetric,
  type IWidget,
  MathExpression,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Domain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  API_5XX_ALARM,
  apiServerErrorRate,
  freeStorageThresholdMiB,
  ITERATOR_AGE_THRESHOLD_MS,
  SEARCH_CAPACITY_ALARMS,
} from './alarms';

/** One API path and how it is shown (`POST /search`). */
export interface DashboardEndpoint {
  path: string;
  label: string;
}

export interface JobsApiDashboardProps {
  /** The dashboard's name (unique in the account: dashboards are not regional). */
  dashboardName: string;
  api: RestApi;
  stageName: string;
  /** The API's endpoints, one line each in the API widgets. */
  endpoints: readonly DashboardEndpoint[];
  /** Every function, by a short name used as its line's label. */
  functions: Record<string, IFunction>;
  indexer: IFunction;
  deadLetterQueue: IQueue;
  /** The images function and the queue of the upload events it gave up on. */
  images: IFunction;
  imagesDeadLetterQueue: IQueue;
  /** The events function and the queue of the stream records whose events it gave up on. */
  events: IFunction;
  eventsDeadLetterQueue: IQueue;
  /** The webhooks' sender and the queue of the webhook events and deliveries it gave up on. */
  webhooksSender: IFunction;
  webhooksDeadLetterQueue: IQueue;
  domain: Domain;
  /** The EBS volume of each data node, in GiB (the free-storage graph marks its alarm's threshold). */
  searchVolumeSizeGiB: number;
}

/** The granularity of every graph: API Gateway and Lambda publish per minute. */
const PERIOD = Duration.minutes(1);

/** A widget of one third of the dashboard's width. */
const graph = (title: string, left: IMetric[], extra: Partial<GraphWidgetProps> = {}): GraphWidget =>
  new GraphWidget({ title, left, width: 8, height: 6, period: PERIOD, ...extra });

/** A function's invocations, errors and throttles, each summed per period. */
const invocationsGraph = (title: string, fn: IFunction): GraphWidget =>
  graph(title, [
    fn.metricInvocations({ statistic: 'Sum', label: 'Invocations' }),
    fn.metricErrors({ statistic: 'Sum', label: 'Errors' }),
    fn.metricThrottles({ statistic: 'Sum', label: 'Throttles' }),
  ]);

/** The messages a dead-letter queue holds, the most in each period. */
const deadLettersGraph = (title: string, queue: IQueue): GraphWidget =>
  graph(title, [queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: 'Messages' })]);

/** The dashboard of the stack. */
export class JobsApiDashboard extends Construct {
  public readonly dashboard: Dashboard;

  public constructor(scope: Construct, id: string, props: JobsApiDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          `## Jobs API (${props.stageName})\n` +
          'Healthy: no 5xx, no function errors or throttles, search lag in seconds, no dead letters, cluster ' +
          'green, JVM memory pressure mostly under 75 %. Each alarm of the stack has its own graph here; see ' +
          'docs/deploy.md, "Watching a deployment".',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(...this.apiWidgets(props));
    this.dashboard.addWidgets(...this.functionWidgets(props));
    this.dashboard.addWidgets(...this.searchWidgets(props));
    this.dashboard.addWidgets(...this.imageWidgets(props));
    this.dashboard.addWidgets(...this.eventWidgets(props));
    this.dashboard.addWidgets(...this.webhookWidgets(props));
  }

  /** The events: stream batches published and failed, how far behind the stream, and the records given up on. */
  private eventWidgets(props: JobsApiDashboardProps): IWidget[] {
    const { events } = props;
    return [
      invocationsGraph('Events: stream batches and errors', events),
      graph(
        'Events lag: stream iterator age (ms)',
        [events.metric('IteratorAge', { statistic: 'Maximum', label: 'Iterator age' })],
        { leftAnnotations: [{ value: ITERATOR_AGE_THRESHOLD_MS, label: 'Alarm' }] },
      ),
      deadLettersGraph('Events: dead letters waiting', props.eventsDeadLetterQueue),
    ];
  }

  /** The webhooks: the sender's batches and errors, and the events and deliveries it gave up on. */
  private webhookWidgets(props: JobsApiDashboardProps): IWidget[] {
    const sender = props.webhooksSender;
    return [
      invocationsGraph('Webhooks: sender batches and errors', sender),
      deadLettersGraph('Webhooks: dead letters waiting', props.webhooksDeadLetterQueue),
    ];
  }

  /** The pictures: uploads processed and failed, how long each took, and the events given up on. */
  private imageWidgets(props: JobsApiDashboardProps): IWidget[] {
    const { images } = props;
    return [
      invocationsGraph('Images: uploads processed and errors', images),
      graph('Images: duration per upload (ms)', [
        images.metricDuration({ statistic: 'p50', label: 'p50' }),
        images.metricDuration({ statistic: 'p99', label: 'p99' }),
        images.metricDuration({ statistic: 'Maximum', label: 'Maximum' }),
      ]),
      deadLettersGraph('Images: dead letters waiting', props.imagesDeadLetterQueue),
    ];
  }

  /**
   * Per-endpoint figures come from API Gateway's per-method metrics (the stage has detailed metrics on),
   * found by a search on the path, so they show whatever method names API Gateway reports for `ANY`.
   */
  private apiWidgets(props: JobsApiDashboardProps): IWidget[] {
    const perEndpoint = (metricName: string, statistic: string): IMetric[] =>
      props.endpoints.map(
        (endpoint) =>
          new MathExpression({
            expression:
              `SEARCH('{AWS/ApiGateway,ApiName,Method,Resource,Stage} MetricName="${metricName}" ` +
              `ApiName="${props.api.restApiName}" Stage="${props.stageName}" Resource="${endpoint.path}"', ` +
              `'${statistic}', ${PERIOD.toSeconds()})`,
            label: `${endpoint.label} \${PROP('Dim.Method')}`,
            period: PERIOD,
          }),
      );
    return [
      graph('Requests per endpoint', perEndpoint('Count', 'Sum')),
      graph('Latency p50 per endpoint (ms)', perEndpoint('Latency', 'p50')),
      graph('Latency p99 per endpoint (ms)', perEndpoint('Latency', 'p99')),
      graph('4xx answers per endpoint', perEndpoint('4XXError', 'Sum')),
      graph('5xx answers per endpoint', perEndpoint('5XXError', 'Sum')),
      graph('Whole API, unknown paths included', [
        props.api.metricCount({ statistic: 'Sum', label: 'Requests' }),
        props.api.metricClientError({ statistic: 'Sum', label: '4xx' }),
        props.api.metricServerError({ statistic: 'Sum', label: '5xx' }),
      ]),
      graph(
        `API 5xx share of requests (%, per ${API_5XX_ALARM.windowMinutes} minutes)`,
        [apiServerErrorRate(props.api)],
        {
          period: Duration.minutes(API_5XX_ALARM.windowMinutes),
          leftAnnotations: [{ value: API_5XX_ALARM.thresholdPercent, label: 'Alarm' }],
        },
      ),
    ];
  }

  private functionWidgets(props: JobsApiDashboardProps): IWidget[] {
    const each = (metric: (fn: IFunction, label: string) => IMetric): IMetric[] =>
      Object.entries(props.functions).map(([name, fn]) => metric(fn, name));
    return [
      graph(
        'Function errors',
        each((fn, label) => fn.metricErrors({ statistic: 'Sum', label })),
      ),
      graph(
        'Function throttles',
        each((fn, label) => fn.metricThrottles({ statistic: 'Sum', label })),
      ),
      graph(
        'Function concurrency (max)',
        each((fn, label) => fn.metric('ConcurrentExecutions', { statistic: 'Maximum', label })),
      ),
    ];
  }

  private searchWidgets(props: JobsApiDashboardProps): IWidget[] {
    const { domain } = props;
    return [
      graph(
        'Search lag: stream iterator age (ms)',
        [props.indexer.metric('IteratorAge', { statistic: 'Maximum', label: 'Iterator age' })],
        { leftAnnotations: [{ value: ITERATOR_AGE_THRESHOLD_MS, label: 'Alarm' }] },
      ),
      deadLettersGraph('Dead letters waiting', props.deadLetterQueue),
      graph('Search cluster status', [
        domain.metric('ClusterStatus.green', { statistic: 'Maximum', label: 'Green' }),
        domain.metricClusterStatusYellow({ statistic: 'Maximum', label: 'Yellow' }),
        domain.metricClusterStatusRed({ statistic: 'Maximum', label: 'Red' }),
        domain.metricClusterIndexWritesBlocked({ statistic: 'Maximum', label: 'Writes blocked' }),
      ]),
      graph(
        'Search JVM memory pressure (%)',
        [domain.metricJVMMemoryPressure({ statistic: 'Maximum', label: 'Highest node' })],
        { leftAnnotations: [{ value: SEARCH_CAPACITY_ALARMS.jvmMemoryPressurePercent, label: 'Alarm' }] },
      ),
      graph(
        'Search free storage (MiB)',
        [domain.metricFreeStorageSpace({ statistic: 'Minimum', label: 'Lowest node' })],
        { leftAnnotations: [{ value: freeStorageThresholdMiB(props.searchVolumeSizeGiB), label: 'Alarm' }] },
      ),
    ];
  }
}
