/**
 * Builds the CDK app: reads the configuration from context, adds the stack and registers the cdk-nag
 * AwsSolutions checks and AWS Control Tower's proactive controls (cfn-guard), which stop synthesis on any
 * finding that is not acknowledged with a reason. `bin/app.ts` only calls this.
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ACCOUNT_STACK_NAME, ApiGatewayAccountStack } from './api-gateway-account';
import { ControlTowerChecks } from './control-tower';
import { JobsApiStack } from './jobs-api-stack';
import { readStackConfig, stackNameFor } from './stack-config';

/** How the app is checked. */
export interface BuildOptions {
  /**
   * Whether synthesis runs AWS Control Tower’s checks (cfn-guard, about six and a half CPU-seconds per synthesis of the stage).
   * `cdk synth` always does; tests that only read the template leave them to test/infra/control-tower.test.ts.
   * @default true
   */
  controlTowerChecks?: boolean;
}

/** Adds the Jobs API stack of the context's stage to an app and checks it with cdk-nag and cfn-guard. */
export const buildJobsApi = (app: App, options: BuildOptions = {}): JobsApiStack => {
  const config = readStackConfig((key) => app.node.tryGetContext(key));
  const account =
    (app.node.tryFindChild(ACCOUNT_STACK_NAME) as ApiGatewayAccountStack | undefined) ??
    new ApiGatewayAccountStack(app, ACCOUNT_STACK_NAME, {
      description: 'Jobs API: account-wide API Gateway settings shared by every stage',
    });
  const stack = new JobsApiStack(app, stackNameFor(config.stage), {
    config,
    description: `Jobs API (${config.stage}): job search and file rejection`,
  });
  stack.addStackDependency(account);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  if (options.controlTowerChecks ?? true) Validations.of(app).addPlugins(new ControlTowerChecks());
  return stack;
};
