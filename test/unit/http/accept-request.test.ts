/**
 * The body of `POST /accept` read from either encoding: the validated file ids, or `400 invalid_parameter`
 * naming the first bad parameter (`fileIds[1]` in JSON, `fileId` in a form), a file listed twice included.
 */
import { describe, expect, it } from 'vitest';
import { parseAcceptRequest } from '../../../functions/http/accept-request';
import type { RequestBody } from '../../../functions/http/request';
import { expectApiError } from './expect-api-error';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'form', fields });

describe('the body of POST /accept', () => {
  it('reads the file ids of a JSON body in order', () => {
    expect(parseAcceptRequest(json({ fileIds: [3, 1, 2] }))).toEqual({ fileIds: [3, 1, 2] });
  });

  it('reads the repeated fileId of a form, one value as a list of one', () => {
    expect(parseAcceptRequest(form({ fileId: ['4', '2'] }))).toEqual({ fileIds: [4, 2] });
    expect(parseAcceptRequest(form({ fileId: '7' }))).toEqual({ fileIds: [7] });
  });

  it('ignores other fields of either encoding', () => {
    expect(parseAcceptRequest(json({ fileIds: [1], fileId: [2], extra: true }))).toEqual({ fileIds: [1] });
    expect(parseAcceptRequest(form({ fileId: '1', fileIds: '2' }))).toEqual({ fileIds: [1] });
  });

  it('names the later occurrence of a file listed twice in JSON', async () => {
    const error = await expectApiError(() => parseAcceptRequest(json({ fileIds: [5, 6, 5] })), 'invalid_parameter', {
      parameter: 'fileIds[2]',
    });
    expect(error.message).toBe('File 5 is listed more than once.');
  });

  it('names fileId for a file listed twice in a form', async () => {
    const error = await expectApiError(() => parseAcceptRequest(form({ fileId: ['8', '8'] })), 'invalid_parameter', {
      parameter: 'fileId',
    });
    expect(error.message).toBe('File 8 is listed more than once.');
  });

  it('refuses a JSON body by the path of its first bad field', async () => {
    await expectApiError(() => parseAcceptRequest(json({})), 'invalid_parameter', { parameter: 'fileIds' });
    await expectApiError(() => parseAcceptRequest(json({ fileIds: [1, 0] })), 'invalid_parameter', {
      parameter: 'fileIds[1]',
    });
  });

  it('refuses a form by the top-level field, whichever item is bad', async () => {
    await expectApiError(() => parseAcceptRequest(form({})), 'invalid_parameter', { parameter: 'fileId' });
    await expectApiError(() => parseAcceptRequest(form({ fileId: ['1', 'x'] })), 'invalid_parameter', {
      parameter: 'fileId',
    });
  });
});
