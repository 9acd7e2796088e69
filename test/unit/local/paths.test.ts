import { describe, expect, it } from 'vitest';
import {
  assertSupportedNode,
  dataPaths,
  LocalSettingError,
  localDynamoDbEndpoint,
  localImagesBucket,
  localTableNames,
  portFrom,
  UnsupportedNodeError,
} from '../../../local/paths';

describe('local stack paths and settings', () => {
  it('names the local tables after the shared table definitions', () => {
    expect(localTableNames()).toEqual({ jobsTable: 'jobs-api-local-Jobs', authTable: 'jobs-api-local-Auth' });
    expect(localTableNames('e2e-1')).toEqual({ jobsTable: 'e2e-1-Jobs', authTable: 'e2e-1-Auth' });
  });

  it('names the local pictures’ bucket after the same prefix', () => {
    expect(localImagesBucket()).toBe('jobs-api-local-images');
    expect(localImagesBucket('e2e-1')).toBe('e2e-1-images');
  });

  it('keeps every file under the data directory', () => {
    const paths = dataPaths('/tmp/jobs-data');
    expect(paths).toEqual({
      inMemory: false,
      root: '/tmp/jobs-data',
      dynamodbDir: '/tmp/jobs-data/dynamodb',
      searchDb: '/tmp/jobs-data/search.sqlite',
      deadLetters: '/tmp/jobs-data/dead-letters.ndjson',
      demoTokens: '/tmp/jobs-data/demo-tokens.json',
      streamCheckpoints: '/tmp/jobs-data/stream-checkpoints.json',
      cursorKey: '/tmp/jobs-data/cursor-key',
      auditLog: '/tmp/jobs-data/audit.ndjson',
      s3Dir: '/tmp/jobs-data/s3',
      events: '/tmp/jobs-data/events.ndjson',
      eventCheckpoints: '/tmp/jobs-data/event-stream-checkpoints.json',
    });
  });

  it('keeps nothing on disk with :memory:', () => {
    expect(dataPaths(':memory:')).toMatchObject({
      inMemory: true,
      root: undefined,
      searchDb: ':memory:',
      s3Dir: undefined,
    });
  });

  it('reads ports from the environment and refuses anything else', () => {
    expect(portFrom({}, 'PORT', 3000)).toBe(3000);
    expect(portFrom({ PORT: ' 8080 ' }, 'PORT', 3000)).toBe(8080);
    expect(() => portFrom({ PORT: 'eighty' }, 'PORT', 3000)).toThrow(LocalSettingError);
    expect(() => portFrom({ PORT: '70000' }, 'PORT', 3000)).toThrow(LocalSettingError);
    expect(localDynamoDbEndpoint(8000)).toBe('http://localhost:8000');
  });

  it('refuses a Node.js older than the Lambda runtime', () => {
    expect(() => assertSupportedNode('20.20.2')).toThrow(UnsupportedNodeError);
    expect(() => assertSupportedNode('24.0.0')).not.toThrow();
  });
});
