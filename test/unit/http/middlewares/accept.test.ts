import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { acceptCheck } from '../../../../functions/http/middlewares/accept';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

describe('Accept check middleware', () => {
  it.each(['application/json', 'Application/JSON;charset=utf-8', 'text/html, application/json;q=0.1'])(
    'lets Accept: %s through',
    async (accept) => {
      await expect(runBefore(acceptCheck(), requestFor({ headers: { Accept: accept } }))).resolves.toBeUndefined();
    },
  );

  it.each([
    ['Accept is */*', { Accept: '*/*' }],
    ['Accept is application/*', { Accept: 'application/*' }],
    ['Accept is missing', {}],
    ['Accept is empty', { Accept: '' }],
    ['Accept refuses JSON with q=0', { Accept: 'application/json;q=0' }],
    ['Accept names only XML', { accept: 'application/xml' }],
  ])('answers 406 when %s', async (_name, headers) => {
    const error = await expectApiError(() => runBefore(acceptCheck(), requestFor({ headers })), 'not_acceptable');
    expect(ERROR_STATUS[error.code]).toBe(406);
  });

  it('reads every line of a repeated Accept header', async () => {
    const request = requestFor({ headers: { Accept: ['application/json', 'text/html'] } });
    await expect(runBefore(acceptCheck(), request)).resolves.toBeUndefined();
  });

  it('reads a lower-case header name (after normalisation)', async () => {
    await expect(
      runBefore(acceptCheck(), requestFor({ headers: { accept: 'application/json' } })),
    ).resolves.toBeUndefined();
  });
});
