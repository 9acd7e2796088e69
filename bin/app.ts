#!/usr/bin/env node
/**
 * The CDK app (`cdk synth`, `cdk deploy`). Configuration comes from context; see docs/deploy.md.
 */
import { App } from 'aws-cdk-lib';
import { buildJobsApi } from '../lib/app';

const app = new App();
buildJobsApi(app);
app.synth();
