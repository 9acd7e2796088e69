/**
 * The reindex command the local stack names when stream records were trimmed unread: the one a user
 * types in another terminal to reach this stack.
 */
import { describe, expect, it } from 'vitest';
import { repairCommandFor } from '../../../local/stack/runtime';

describe('repairCommandFor', () => {
  it('is the plain command with the default data directory and DynamoDB port', () => {
    expect(repairCommandFor({})).toBe('npm run cli -- reindex');
    expect(repairCommandFor({ dataDir: '.data', dynamodbPort: 8000 })).toBe('npm run cli -- reindex');
  });

  it('names the data directory and the DynamoDB port the CLI needs when they are not the defaults', () => {
    expect(repairCommandFor({ dataDir: '/srv/jobs', dynamodbPort: 8100 })).toBe(
      'DATA_DIR=/srv/jobs DYNAMODB_PORT=8100 npm run cli -- reindex',
    );
  });

  it('names the endpoint instead of the port when the stack uses a DynamoDB it did not start', () => {
    expect(repairCommandFor({ dataDir: '/srv/jobs', dynamodbEndpoint: 'http://127.0.0.1:9999' })).toBe(
      'DATA_DIR=/srv/jobs DYNAMODB_ENDPOINT=http://127.0.0.1:9999 npm run cli -- reindex',
    );
  });
});
