import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { requiredHeaders } from '../../../../functions/http/middlewares/required-headers';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

describe('required headers middleware', () => {
  it('lets both tokens through', async () => {
    const request = requestFor({ headers: { 'X-Client-Token': 'c', 'x-session-token': 's' } });
    await expect(runBefore(requiredHeaders(), request)).resolves.toBeUndefined();
  });

  it.each([
    ['both are missing', {}, 'X-Client-Token'],
    ['the client token is missing', { 'X-Session-Token': 's' }, 'X-Client-Token'],
    ['the client token is blank', { 'X-Client-Token': '  ', 'X-Session-Token': 's' }, 'X-Client-Token'],
    ['the session token is missing', { 'X-Client-Token': 'c' }, 'X-Session-Token'],
    ['the session token is empty', { 'X-Client-Token': 'c', 'X-Session-Token': '' }, 'X-Session-Token'],
  ])('answers 400 missing_header when %s', async (_name, headers, headerName) => {
    const error = await expectApiError(() => runBefore(requiredHeaders(), requestFor({ headers })), 'missing_header', {
      headerName,
    });
    expect(ERROR_STATUS[error.code]).toBe(400);
  });
});
