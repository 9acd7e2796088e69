/**
 * GET /search/fields through real HTTP: the fields each role may use, ordered by seqno (docs/contract.md §3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

const field = (id: string, name: string, seqno: number, role: 'all' | 'operator' | 'user' = 'all') => ({
  id,
  name,
  isOperatorOnly: role === 'operator',
  isUserOnly: role === 'user',
  seqno,
});

describe('GET /search/fields', () => {
  it('lists the fields a user may use, ordered by seqno', async () => {
    const tokens = await stack.issue({ role: 'user' });
    const response = await stack.request('/search/fields', { method: 'GET', tokens });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.json).toEqual({
      _type: 'SearchFieldsResponseBody',
      fields: [
        field('Global', 'Global', 10),
        field('JobNumber', 'Job number', 20),
        field('JobName', 'Job name', 30),
        field('FileName', 'File name', 40),
        field('JobInstruction', 'Job instruction', 50),
        field('JobTags', 'Job tags', 60, 'user'),
        field('FileTags', 'File tags', 70, 'user'),
        field('FileInstruction', 'File instruction', 75),
        field('InvoiceReference', 'Invoice reference', 80),
        field('Guid', 'Job GUID', 90),
      ],
    });
  });

  it('lists the fields an operator may use, ordered by seqno', async () => {
    const tokens = await stack.issue({ role: 'operator', grants: ['search'] });
    const response = await stack.request('/search/fields', { method: 'GET', tokens });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      _type: 'SearchFieldsResponseBody',
      fields: [
        field('Global', 'Global', 10),
        field('AccountNumber', 'Account number', 15, 'operator'),
        field('AccountName', 'Account name', 17, 'operator'),
        field('JobNumber', 'Job number', 20),
        field('JobName', 'Job name', 30),
        field('FileName', 'File name', 40),
        field('JobInstruction', 'Job instruction', 50),
        field('FileInstruction', 'File instruction', 75),
        field('InvoiceReference', 'Invoice reference', 80),
        field('Guid', 'Job GUID', 90),
      ],
    });
  });

  it('ignores a body and a query string on GET', async () => {
    const response = await stack.request('/search/fields?field=Global', {
      method: 'GET',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status).toBe(200);
    expect(response.json._type).toBe('SearchFieldsResponseBody');
  });
});
