import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  isPublicAddress,
  MAX_WEBHOOK_URL_LENGTH,
  type Resolve,
} from '../../../functions/webhooks/url-check';

/** A resolver answering from a table, failing for names it does not know (no network in unit tests). */
const dns =
  (table: Record<string, string[]>): Resolve =>
  async (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const resolve = dns({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'rebind.example.com': ['127.0.0.1'],
  'half.example.com': ['93.184.215.14', '10.0.0.8'],
  'metadata.example.com': ['169.254.169.254'],
  'v6-metadata.example.com': ['fd00:ec2::254'],
  'empty.example.com': [],
  localhost: ['127.0.0.1', '::1'],
});

describe('a webhook URL', () => {
  it('is allowed over https when every address of its host is public, with those addresses', async () => {
    const verdict = await checkWebhookUrl('https://hooks.example.com/jobs?tenant=7', { resolve });
    expect(verdict).toEqual({
      ok: true,
      url: new URL('https://hooks.example.com/jobs?tenant=7'),
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
  });

  it.each([
    ['http://hooks.example.com/', 'the URL must use https'],
    ['ftp://hooks.example.com/', 'the URL must use https'],
    ['hooks.example.com/path', 'the URL is not an absolute URL'],
    ['', 'the URL is not an absolute URL'],
    ['https://user:pass@hooks.example.com/', 'the URL must not carry credentials'],
  ])('refuses %j: %s', async (url, reason) => {
    await expect(checkWebhookUrl(url, { resolve })).resolves.toEqual({ ok: false, reason });
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://metadata.example.com/',
    'https://v6-metadata.example.com/',
    'https://rebind.example.com/',
    'https://half.example.com/',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://10.1.2.3/',
    'https://172.20.0.1/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[fe80::1]/',
    'https://[fd12:3456::1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:7f00:1::]/',
    'https://224.0.0.1/',
    'https://localhost/',
    'https://2130706433/',
    'https://0x7f.1/',
  ])('refuses %s, whose host is or resolves to an address no webhook may reach', async (url) => {
    await expect(checkWebhookUrl(url, { resolve })).resolves.toEqual({
      ok: false,
      reason: "the URL's host resolves to a loopback, private, link-local or reserved address",
    });
  });

  it('refuses a host that does not resolve, or resolves to nothing, saying that was the only reason', async () => {
    for (const url of ['https://nowhere.example.com/', 'https://empty.example.com/']) {
      await expect(checkWebhookUrl(url, { resolve })).resolves.toEqual({
        ok: false,
        reason: "the URL's host does not resolve",
        unresolved: true,
      });
    }
  });

  it(`refuses a URL longer than ${MAX_WEBHOOK_URL_LENGTH} characters`, async () => {
    const url = `https://hooks.example.com/${'a'.repeat(MAX_WEBHOOK_URL_LENGTH)}`;
    await expect(checkWebhookUrl(url, { resolve })).resolves.toMatchObject({ ok: false });
  });

  it('allows http://localhost and loopback addresses only where local webhooks are allowed, and nothing else private', async () => {
    for (const url of ['http://localhost:4000/hook', 'http://127.0.0.1:4000/hook', 'http://[::1]:4000/hook']) {
      await expect(checkWebhookUrl(url, { resolve, allowLocal: true })).resolves.toMatchObject({ ok: true });
      await expect(checkWebhookUrl(url, { resolve })).resolves.toMatchObject({ ok: false });
    }
    for (const url of [
      'http://10.0.0.1/',
      'http://169.254.169.254/',
      'http://hooks.example.com/',
      'https://rebind.example.com/',
    ]) {
      await expect(checkWebhookUrl(url, { resolve, allowLocal: true })).resolves.toMatchObject({ ok: false });
    }
  });

  it('never throws, whatever the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.webUrl()), async (text) => {
        const verdict = await checkWebhookUrl(text, { resolve: dns({}) });
        expect(typeof verdict.ok).toBe('boolean');
      }),
      { numRuns: 200 },
    );
  });
});

describe('a public address', () => {
  it('is one outside every forbidden range', () => {
    expect(['8.8.8.8', '93.184.215.14', '2606:4700::1111', '1.1.1.1'].map(isPublicAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['not an address', '127.0.0.1', '169.254.170.2', 'fd00:ec2::254'].map(isPublicAddress)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
