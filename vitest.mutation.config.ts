/**
 * The tests of a mutation run (stryker.config.mjs): the `unit` project of vitest.config.ts alone — pure tests and
 * handler tests on mocked events, no DynamoDB Local and no spawned process, so each mutant costs a fraction of a
 * second. The integration tier stays with `npm test`.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

const projects = (base.test?.projects ?? []).filter(
  (project) => typeof project === 'object' && 'test' in project && project.test?.name === 'unit',
);
if (projects.length !== 1) throw new Error('vitest.config.ts has no project named unit');

export default defineConfig({ ...base, test: { ...base.test, projects } });
