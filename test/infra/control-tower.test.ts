/**
 * AWS Control Tower's proactive controls as a second witness beside cdk-nag: the app is synthesized as
 * `cdk synth` does (without bundling), with the cfn-guard plugin the app registers, and the validation
 * report CDK writes is read back. A scratch app with a non-compliant resource shows the check can fail.
 *
 * CDK's own CloudFormation template validation runs here too, as in `cdk synth` (the other tests turn it off
 * with `CDK_VALIDATION=false`, vitest.config.ts, for its cost): the app must leave it nothing to report.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  App,
  CfnResource,
  CloudFormationValidatePlugin,
  type IPolicyValidationContext,
  type PolicyValidationPluginReport,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { CfnFunction, CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobsApi } from '../../lib/app';
import { ALARM_SUBSCRIBER } from './template-only';
import {
  applicableRules,
  CONTROL_TOWER_PLUGIN,
  CONTROL_TOWER_RULES,
  ControlTowerChecks,
  guardRuleId,
  ruleFiles,
  templateForTypes,
} from '../../lib/control-tower';

interface Violation {
  ruleName: string;
  description: string;
  reason?: string;
  violatingConstructs: { constructPath: string }[];
}
interface PluginReport {
  pluginName: string;
  conclusion: string;
  violations: Violation[];
  suppressedViolations?: Violation[];
}

const outdirs: string[] = [];

/** Synthesizes an app into a fresh directory and reads back every plugin's report. */
const synthesizeReports = (app: (outdir: string) => App): PluginReport[] => {
  const outdir = mkdtempSync(join(tmpdir(), 'jobs-api-guard-'));
  outdirs.push(outdir);
  app(outdir).synth();
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: PluginReport[];
  };
  return report.pluginReports;
};

/** cfn-guard's report on an app; synthesis throws on any finding nobody acknowledged. */
const synthesize = (app: (outdir: string) => App): PluginReport & { builtin: Violation[] } => {
  const reports = synthesizeReports(app);
  const guard = reports.find((plugin) => plugin.pluginName === CONTROL_TOWER_PLUGIN);
  if (guard === undefined) throw new Error('cfn-guard did not report');
  return { ...guard, builtin: builtinFindings(reports) };
};

/** What CDK's built-in CloudFormation validation found (it reports only when it finds something). */
const builtinFindings = (reports: PluginReport[]): Violation[] =>
  reports
    .filter((plugin) => plugin.pluginName === CloudFormationValidatePlugin.PLUGIN_NAME)
    .flatMap((plugin) => plugin.violations);

/** An alarm on Lambda errors that notifies nobody (CT.CLOUDWATCH.PR.1 finds it). */
const silentAlarm = (stack: Stack, id: string): CfnAlarm =>
  new CfnAlarm(stack, id, {
    comparisonOperator: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    threshold: 1,
    metricName: 'Errors',
    namespace: 'AWS/Lambda',
    period: 60,
    statistic: 'Sum',
  });

/** The Jobs API app of a context, as `cdk synth` builds it, failing on findings as the CLI does. */
const jobsApi =
  (context: Record<string, string> = {}) =>
  (outdir: string): App => {
    const app = new App({
      outdir,
      context: { 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:appMode': 'inmemory', ...ALARM_SUBSCRIBER, ...context },
    });
    buildJobsApi(app);
    return app;
  };

const acknowledgedRules = (report: PluginReport): string[] =>
  [...new Set((report.suppressedViolations ?? []).map((violation) => violation.ruleName))].sort();

/**
 * How long one synthesis may take: with CDK's own validation, cdk-nag and cfn-guard it costs about 45 CPU-seconds,
 * and beside the suite's other worker on a busy two-core machine several times that wall time. The limit is there
 * to end a hang, not to measure speed.
 */
const SYNTHESIS_TIMEOUT = 300_000;

let defaults: ReturnType<typeof synthesize>;
const builtinValidation = process.env.CDK_VALIDATION;

beforeAll(() => {
  // As `cdk synth` runs it: CDK's built-in template validation on.
  delete process.env.CDK_VALIDATION;
  defaults = synthesize(jobsApi());
}, SYNTHESIS_TIMEOUT);

afterAll(() => {
  if (builtinValidation !== undefined) process.env.CDK_VALIDATION = builtinValidation;
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

describe('Control Tower’s proactive controls', () => {
  /** A year of log retention, a one-node development domain and the per-client limits' web ACL. */
  let configured: ReturnType<typeof synthesize>;

  beforeAll(() => {
    configured = synthesize(
      jobsApi({
        stage: 'dev',
        retentionDays: '365',
        searchInstanceCount: '1',
        searchZoneCount: '1',
        ipRateLimit: '600',
        clientRateLimit: '3000',
      }),
    );
  }, SYNTHESIS_TIMEOUT);

  it('load the bundled rules and run the bundled cfn-guard binary of this machine, offline', () => {
    const checks = new ControlTowerChecks();
    expect(checks.ruleIds?.length).toBeGreaterThan(100);
    expect(checks.ruleIds).toEqual(expect.arrayContaining(['cloudwatchpr1', 'lambdapr3', 'opensearchpr15']));
    expect(defaults.conclusion).toBe('success');
  });

  it('find nothing in the default stack that is not acknowledged', () => {
    expect(defaults.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('accept only the deliberate differences and the known false positives, each with its written reason', () => {
    expect(acknowledgedRules(defaults)).toEqual([
      'cloudwatch_log_group_encrypted_check',
      'cloudwatch_log_group_retention_period_check',
      'lambda_function_public_access_prohibited_check',
      'lambda_inside_vpc_check',
      'opensearch_audit_logging_enabled_check',
      'opensearch_fine_grained_access_control_enabled_check',
      'opensearch_https_required_check',
      'opensearch_in_vpc_only_check',
      's3_bucket_default_encryption_kms_check',
      's3_bucket_logging_enabled_check',
      's3_bucket_object_lock_enabled_check',
      's3_bucket_versioning_enabled_check',
      's3_event_notifications_enabled_check',
      'sqs_dlq_check',
    ]);
    for (const violation of defaults.suppressedViolations ?? []) {
      // A service's name may hold digits (CT.S3.PR.10).
      const control = /^\[(CT\.[A-Z0-9]+\.PR\.\d+)\]/.exec(violation.description)?.[1];
      expect(control, violation.ruleName).toBeDefined();
      expect(violation.reason, violation.ruleName).toMatch(
        new RegExp(`^\\[${control?.replaceAll('.', '\\.')}\\] .{80,}`),
      );
    }
  });

  it('are met, not acknowledged, for the pictures bucket’s public access, TLS, logging and notifications', () => {
    const onPicturesBucket = (defaults.suppressedViolations ?? [])
      .filter((violation) =>
        violation.violatingConstructs.some((construct) =>
          construct.constructPath.endsWith('/ImagesBucket/Bucket/Resource'),
        ),
      )
      .map((violation) => violation.ruleName)
      .sort();
    expect(onPicturesBucket).toEqual([
      's3_bucket_default_encryption_kms_check',
      's3_bucket_object_lock_enabled_check',
      's3_bucket_versioning_enabled_check',
    ]);
  });

  it('are met, not acknowledged, for alarm actions: every alarm notifies a topic', () => {
    expect(acknowledgedRules(defaults)).not.toContain('cloudwatch_alarm_action_check');
    expect(acknowledgedRules(defaults)).not.toContain('cloudwatch_alarm_action_enabled_check');
  });

  it('accept short log retention only below a year, a small search domain only when context asks for one, and the web ACL as it is', () => {
    expect(configured.violations).toEqual([]);
    expect(configured.builtin).toEqual([]);
    expect(acknowledgedRules(configured)).not.toContain('cloudwatch_log_group_retention_period_check');
    expect(acknowledgedRules(configured)).toContain('opensearch_data_node_fault_tolerance_check');
    expect(acknowledgedRules(defaults)).not.toContain('opensearch_data_node_fault_tolerance_check');
  });

  it('stop synthesis on a finding nobody acknowledged, even beside an acknowledged one', () => {
    const scratch = (outdir: string): App => {
      const app = new App({ outdir, context: { '@aws-cdk/core:appMode': 'inmemory' } });
      const stack = new Stack(app, 'Scratch');
      const alarm = (id: string) => silentAlarm(stack, id);
      Validations.of(alarm('Acknowledged')).acknowledge({
        id: guardRuleId('cloudwatch_alarm_action_check'),
        reason: 'acknowledged for this test',
      });
      alarm('Silent');
      Validations.of(app).addPlugins(new ControlTowerChecks());
      return app;
    };
    // One synthesis serves both assertions: what it throws names the silent alarm and not the acknowledged one.
    let failure: unknown;
    try {
      synthesize(scratch);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/CT\.CLOUDWATCH\.PR\.1[\s\S]*Scratch\/Silent/);
    expect((failure as Error).message).not.toMatch(/Scratch\/Acknowledged/);
  });
});

describe('CDK’s built-in CloudFormation template validation, as `cdk synth` runs it', () => {
  it('finds nothing in the default stack', () => {
    expect(defaults.builtin).toEqual([]);
  });

  it('runs in these syntheses: it reports a property CloudFormation does not know', () => {
    const scratch = (outdir: string): App => {
      const app = new App({ outdir, context: { '@aws-cdk/core:appMode': 'inmemory' } });
      new CfnResource(new Stack(app, 'Scratch'), 'Queue', {
        type: 'AWS::SQS::Queue',
        properties: { NoSuchProperty: 1 },
      });
      return app;
    };
    expect(builtinFindings(synthesizeReports(scratch))).toEqual([
      expect.objectContaining({
        ruleName: 'F3002',
        description: expect.stringContaining('NoSuchProperty'),
        violatingConstructs: [expect.objectContaining({ constructPath: 'Scratch/Queue' })],
      }),
    ]);
  });
});

describe('the Control Tower rules cfn-guard runs', () => {
  /** A stack of resources of several services, each failing some control, and one template with nothing in it. */
  const scratchSynthesis = (): IPolicyValidationContext => {
    const outdir = mkdtempSync(join(tmpdir(), 'jobs-api-guard-rules-'));
    outdirs.push(outdir);
    const app = new App({ outdir, context: { '@aws-cdk/core:appMode': 'inmemory' } });
    const stack = new Stack(app, 'Mixed');
    const bucket = new CfnBucket(stack, 'Bucket');
    new CfnQueue(stack, 'Queue');
    new CfnTable(stack, 'Table', {
      keySchema: [{ attributeName: 'pk', keyType: 'HASH' }],
      attributeDefinitions: [{ attributeName: 'pk', attributeType: 'S' }],
      billingMode: 'PAY_PER_REQUEST',
    });
    new CfnFunction(stack, 'Function', {
      code: { zipFile: 'exports.handler = async () => {};' },
      role: 'arn:aws:iam::123456789012:role/scratch',
      runtime: 'nodejs24.x',
      handler: 'index.handler',
    });
    silentAlarm(stack, 'Alarm');
    // CT.LAMBDA.PR.2 accepts a service principal's permission only with a SourceArn that is a string or a
    // reference to a resource the template holds: this one passes only if the bucket is still there to find.
    new CfnPermission(stack, 'BucketInvokes', {
      action: 'lambda:InvokeFunction',
      functionName: 'scratch',
      principal: 's3.amazonaws.com',
      sourceArn: bucket.attrArn,
    });
    new CfnPermission(stack, 'AnyoneInvokes', {
      action: 'lambda:InvokeFunction',
      functionName: 'scratch',
      principal: '*',
    });
    new Stack(app, 'Empty').templateOptions.description = 'nothing but a description';
    const assembly = app.synth();
    return {
      templatePaths: assembly.stacks.map((artifact) => join(outdir, artifact.templateFile)),
      stackTemplates: [],
      appConstruct: app,
    };
  };

  /** Each finding as the report shows it: rule, description, fix, template, resource and property paths. */
  const findings = (report: PolicyValidationPluginReport) =>
    report.violations
      .flatMap((violation) =>
        violation.violatingResources.map((resource) =>
          [
            violation.ruleName,
            resource.resourceLogicalId,
            resource.templatePath,
            [...resource.locations].sort().join(' '),
            violation.description,
            violation.fix,
          ].join(' | '),
        ),
      )
      .sort();

  it('each name the resource types they report on, so a rule is left out only where none of its types is', () => {
    const rules = ruleFiles(CONTROL_TOWER_RULES);
    expect(rules.length).toBe(new ControlTowerChecks().ruleIds?.length);
    for (const rule of rules) {
      const reportsOn = /Reports on:\n#\s+(.+)/.exec(readFileSync(rule, 'utf8'))?.[1]?.split(',') ?? [];
      expect(reportsOn.length, rule).toBeGreaterThan(0);
      for (const type of reportsOn) {
        expect(type.trim(), rule).toMatch(/^AWS::\w+::\w+$/);
        expect(applicableRules([rule], new Set([type.trim()])), rule).toEqual([rule]);
      }
    }
  });

  it('select resources only by type, or look one up by logical id for its existence and type', () => {
    // What lets cfn-guard run on templates in which the resources of types a rule does not name keep only
    // their type (templateForTypes).
    for (const rule of ruleFiles(CONTROL_TOWER_RULES)) {
      const code = readFileSync(rule, 'utf8')
        .replaceAll(/<<[\s\S]*?>>/g, '')
        .replaceAll(/#.*$/gm, '')
        .replaceAll(/\s+/g, ' ');
      for (const [query] of code.matchAll(/\bResources\b.{0,80}/g)) {
        expect(query, rule).toMatch(
          // The last is a property of an EKS cluster's EncryptionConfig, not the template's resources.
          /^Resources( exists|(\.\*)?\[ Type (==|in) %\w+ ?(\]|or)|\[ keys == %resource_key \]|\[\*\] == "secrets")/,
        );
      }
      for (const [use] of code.matchAll(/%referenced_resource\b.{0,40}/g)) {
        expect(use, rule).toMatch(/^%referenced_resource( not empty| \{ Type (==|in) %\w+ \})/);
      }
    }
    const template = {
      Description: 'kept',
      Resources: {
        Bucket: { Type: 'AWS::S3::Bucket', Properties: { A: 1 } },
        Queue: { Type: 'AWS::SQS::Queue', Properties: { B: 2 } },
      },
    };
    expect(templateForTypes(template, new Set(['AWS::SQS::Queue']))).toEqual({
      Description: 'kept',
      Resources: { Bucket: { Type: 'AWS::S3::Bucket' }, Queue: template.Resources.Queue },
    });
  });

  it('find on the templates of a synthesis exactly what every bundled rule finds', () => {
    const context = scratchSynthesis();
    const everyRule = new CfnGuardValidator({ controlTowerRulesEnabled: true }).validate(context);
    const applicable = new ControlTowerChecks().validate(context);

    expect(findings(everyRule).length).toBeGreaterThan(5);
    expect(findings(everyRule)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^lambda_function_public_access_prohibited_check \| AnyoneInvokes /),
      ]),
    );
    expect(findings(everyRule).join('\n')).not.toMatch(/BucketInvokes/);
    expect(findings(applicable)).toEqual(findings(everyRule));
    expect(applicable.success).toBe(everyRule.success);
  });
});
