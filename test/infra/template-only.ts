/**
 * How the tests that only read the synthesized template build the app (the infra tests, the bundling test,
 * the cloud rehearsal): without AWS Control Tower's checks, about 6.5 CPU-seconds of cfn-guard per synthesis.
 * test/infra/control-tower.test.ts runs them, as `cdk synth` does, on the default and a development
 * configuration.
 */
import type { BuildOptions } from '../../lib/app';

export const TEMPLATE_ONLY: BuildOptions = { controlTowerChecks: false };

/**
 * The context every test adds to synthesize the default (protected) stage: a protected stage refuses to
 * synthesize without somebody its alarms reach (lib/stack-config.ts), and an address is the simplest such.
 */
export const ALARM_SUBSCRIBER = { alarmEmail: 'alarms@example.com' } as const;
