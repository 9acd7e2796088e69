/**
 * The unit tier stands on its own: vitest.config.ts runs the `unit` project — in `npm test` and in
 * `npm run test:unit` alike — with `java` removed from PATH and no global setup, so no unit test can start
 * DynamoDB Local or be handed an endpoint of one. This file runs in that tier and checks both from inside.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';

describe('unit tier', () => {
  it('cannot find java, so nothing in it can start DynamoDB Local', () => {
    expect(spawnSync('java', ['-version']).error).toMatchObject({ code: 'ENOENT' });
    expect(process.env.JAVA_HOME ?? '').toBe('');
  });

  it('is handed no DynamoDB endpoint (no global setup ran for it)', () => {
    expect(inject('dynamodbEndpoint' as never)).toBeUndefined();
  });

  it('still reaches the programs other than java', () => {
    expect(spawnSync('sh', ['-c', 'exit 0']).status).toBe(0);
  });
});
