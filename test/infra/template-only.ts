/**
 * How the infra tests that only read the synthesized template build the app: without AWS Control Tower's
 * checks, a few CPU-seconds of cfn-guard per synthesis. test/infra/control-tower.test.ts runs them on the
 * default and a development configuration, test/infra/bundling.test.ts as `cdk synth` does.
 */
import type { BuildOptions } from '../../lib/app';

export const TEMPLATE_ONLY: BuildOptions = { controlTowerChecks: false };
