import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { contentTypeCheck } from '../../../../functions/http/middlewares/content-type';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

const post = (headers: Record<string, string>) => requestFor({ method: 'POST', path: '/search', headers });

describe('Content-Type check middleware', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON; charset=utf-8',
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded;charset=UTF-8',
  ])('lets a POST with Content-Type: %s through', async (type) => {
    await expect(runBefore(contentTypeCheck(), post({ 'Content-Type': type }))).resolves.toBeUndefined();
  });

  it.each([
    ['Content-Type is missing', {}],
    ['Content-Type is text/plain', { 'Content-Type': 'text/plain' }],
    ['Content-Type is multipart/form-data', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['Content-Type is application/json-seq', { 'Content-Type': 'application/json-seq' }],
    ['Content-Type is malformed', { 'Content-Type': 'json' }],
  ])('answers 415 to a POST when %s', async (_name, headers) => {
    const error = await expectApiError(() => runBefore(contentTypeCheck(), post(headers)), 'unsupported_media_type');
    expect(ERROR_STATUS[error.code]).toBe(415);
  });

  it('ignores the Content-Type of a GET', async () => {
    await expect(
      runBefore(contentTypeCheck(), requestFor({ method: 'GET', headers: { 'Content-Type': 'text/plain' } })),
    ).resolves.toBeUndefined();
    await expect(runBefore(contentTypeCheck(), requestFor({ method: 'GET' }))).resolves.toBeUndefined();
  });

  it('checks a PATCH as a POST: 415 without a supported Content-Type, through with one', async () => {
    const patch = (headers: Record<string, string>) => requestFor({ method: 'PATCH', path: '/jobs/1', headers });
    await expectApiError(() => runBefore(contentTypeCheck(), patch({})), 'unsupported_media_type');
    await expectApiError(
      () => runBefore(contentTypeCheck(), patch({ 'Content-Type': 'text/plain' })),
      'unsupported_media_type',
    );
    await expect(
      runBefore(contentTypeCheck(), patch({ 'Content-Type': 'application/x-www-form-urlencoded' })),
    ).resolves.toBeUndefined();
  });
});
