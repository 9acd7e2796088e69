/**
 * The dependency timeout's ceiling (functions/config.ts): 9 s against AWS, where two attempts must answer inside
 * API Gateway's limit; up to 120 s against a DynamoDB endpoint of its own, so a local test of size limits does not
 * fail for a busy machine's speed.
 *
 * The pictures' bucket (IMAGES_BUCKET) and the local S3 endpoint (S3_ENDPOINT) are read in the same place.
 */
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../functions/config';

const env = { JOBS_TABLE: 'jobs', AUTH_TABLE: 'auth', SEARCH_ENGINE: 'embedded' };

describe('DEPENDENCY_TIMEOUT_MS', () => {
  it('defaults to 3 s', () => {
    expect(readConfig(env).dependencyTimeoutMs).toBe(3_000);
  });

  it('is at most 9 s against AWS', () => {
    expect(readConfig({ ...env, DEPENDENCY_TIMEOUT_MS: '9000' }).dependencyTimeoutMs).toBe(9_000);
    expect(() => readConfig({ ...env, DEPENDENCY_TIMEOUT_MS: '9001' })).toThrow(
      'Environment variable DEPENDENCY_TIMEOUT_MS must be an integer in [100, 9000], got "9001"',
    );
  });

  it('may reach 120 s against a local DynamoDB endpoint, and no further', () => {
    const local = { ...env, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' };
    expect(readConfig({ ...local, DEPENDENCY_TIMEOUT_MS: '120000' }).dependencyTimeoutMs).toBe(120_000);
    expect(() => readConfig({ ...local, DEPENDENCY_TIMEOUT_MS: '120001' })).toThrow(/\[100, 120000\]/);
  });
});

describe('IMAGES_BUCKET and S3_ENDPOINT', () => {
  it('leave the pictures unconfigured when neither is set', () => {
    expect(readConfig(env).images).toBeUndefined();
    expect(readConfig({ ...env, IMAGES_BUCKET: '  ' }).images).toBeUndefined();
  });

  it('name the bucket, with no endpoint of its own in AWS', () => {
    expect(readConfig({ ...env, IMAGES_BUCKET: ' jobs-images ' }).images).toEqual({
      bucket: 'jobs-images',
      endpoint: undefined,
    });
  });

  it('name the local S3 endpoint beside the bucket', () => {
    expect(readConfig({ ...env, IMAGES_BUCKET: 'jobs-images', S3_ENDPOINT: 'http://127.0.0.1:4569' }).images).toEqual({
      bucket: 'jobs-images',
      endpoint: 'http://127.0.0.1:4569',
    });
  });

  it('refuse an endpoint without a bucket, a deployment error', () => {
    expect(() => readConfig({ ...env, S3_ENDPOINT: 'http://127.0.0.1:4569' })).toThrow(
      'S3_ENDPOINT is set but IMAGES_BUCKET is not',
    );
  });
});
