/**
 * `npm run invoke`: the command line, the local environment, the token headers it puts into API events
 * and how it reports a handler's result or failure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  applyTokens,
  HANDLER_LOADERS,
  INVOKABLE_FUNCTIONS,
  InvokeUsageError,
  invokeHandler,
  loadHandler,
  parseInvokeArgs,
  resolveTokens,
  withStdoutOnStderr,
} from '../../bin/invoke';
import { localStackEnvironment } from '../../local/paths';
import searchEvent from '../../events/search.json';
import indexerEvent from '../../events/indexer.json';

// Each handler module answers with its own file's name, so that a test sees which module a function loaded
// (without loading the real modules and everything they import).
vi.mock('../../functions/handlers/search', () => ({ handler: async () => 'search' }));
vi.mock('../../functions/handlers/search-fields', () => ({ handler: async () => 'search-fields' }));
vi.mock('../../functions/handlers/reject', () => ({ handler: async () => 'reject' }));
vi.mock('../../functions/handlers/sessions', () => ({ handler: async () => 'sessions' }));
vi.mock('../../functions/handlers/jobs-read', () => ({ handler: async () => 'jobs-read' }));
vi.mock('../../functions/handlers/jobs-write', () => ({ handler: async () => 'jobs-write' }));
vi.mock('../../functions/handlers/webhooks', () => ({ handler: async () => 'webhooks' }));
vi.mock('../../functions/handlers/indexer', () => ({ handler: async () => 'indexer' }));
vi.mock('../../functions/handlers/images', () => ({ handler: async () => 'images' }));

describe('the command line', () => {
  it('takes a function name and an event file', () => {
    expect(parseInvokeArgs(['search', 'events/search.json'])).toEqual({
      functionName: 'search',
      eventPath: 'events/search.json',
    });
  });

  it('takes token flags before, between or after the arguments, with a space or an equals sign', () => {
    expect(parseInvokeArgs(['--client-token', 'c1', 'reject', '--session-token=s1', 'events/reject.json'])).toEqual({
      functionName: 'reject',
      eventPath: 'events/reject.json',
      clientToken: 'c1',
      sessionToken: 's1',
    });
  });

  it('takes tokens that begin with dashes as values (base64url tokens may)', () => {
    expect(parseInvokeArgs(['search', 'e.json', '--client-token', '-c1', '--session-token', '--s1'])).toEqual({
      functionName: 'search',
      eventPath: 'e.json',
      clientToken: '-c1',
      sessionToken: '--s1',
    });
  });

  it('knows exactly the nine handlers', () => {
    expect(INVOKABLE_FUNCTIONS).toEqual([
      'search',
      'search-fields',
      'reject',
      'sessions',
      'jobs-read',
      'jobs-write',
      'webhooks',
      'indexer',
      'images',
    ]);
    for (const name of INVOKABLE_FUNCTIONS) expect(parseInvokeArgs([name, 'e.json']).functionName).toBe(name);
  });

  it.each([
    [[], 'required'],
    [['search'], 'required'],
    [['searches', 'e.json'], 'Unknown function "searches"'],
    [['search', 'e.json', 'extra'], 'Unexpected argument extra'],
    [['search', 'e.json', '--client-token'], '--client-token needs a value'],
    [['search', 'e.json', '--session-token', '--client-token', 'x'], '--session-token needs a value'],
    [['search', 'e.json', '--session-token='], '--session-token needs a value'],
    [['search', 'e.json', '--verbose'], 'Unknown option --verbose'],
  ])('refuses %j with a usage error (%s)', (argv, message) => {
    expect(() => parseInvokeArgs(argv)).toThrow(InvokeUsageError);
    expect(() => parseInvokeArgs(argv)).toThrow(message);
  });

  it('answers --help without needing other arguments', () => {
    expect(parseInvokeArgs(['--help']).help).toBe(true);
  });
});

describe('the local environment', () => {
  it('points the handlers at the stack of npm start by default', () => {
    expect(localStackEnvironment({})).toMatchObject({
      JOBS_TABLE: 'jobs-api-local-Jobs',
      AUTH_TABLE: 'jobs-api-local-Auth',
      DYNAMODB_ENDPOINT: 'http://localhost:8000',
      SEARCH_ENGINE: 'embedded',
      SEARCH_DB_PATH: join(process.cwd(), '.data', 'search.sqlite'),
      IMAGES_BUCKET: 'jobs-api-local-images',
      S3_ENDPOINT: 'http://127.0.0.1:4569',
    });
  });

  it('follows DATA_DIR and DYNAMODB_PORT as npm start does', () => {
    expect(localStackEnvironment({ DATA_DIR: '/srv/jobs-data', DYNAMODB_PORT: '8123', S3_PORT: '4570' })).toMatchObject(
      {
        DYNAMODB_ENDPOINT: 'http://localhost:8123',
        S3_ENDPOINT: 'http://127.0.0.1:4570',
        SEARCH_DB_PATH: '/srv/jobs-data/search.sqlite',
      },
    );
  });

  it('keeps every variable that is already set', () => {
    const env = {
      JOBS_TABLE: 'mine-Jobs',
      AUTH_TABLE: 'mine-Auth',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9999',
      SEARCH_DB_PATH: '/tmp/other.sqlite',
      AWS_REGION: 'eu-west-1',
    };
    expect(localStackEnvironment(env)).toMatchObject(env);
  });
});

describe('the token headers', () => {
  let dir: string;
  let demoTokensPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'invoke-'));
    demoTokensPath = join(dir, 'demo-tokens.json');
    const session = (name: string) => ({
      description: name,
      clientToken: `demo-client-${name}`,
      sessionToken: `demo-session-${name}`,
      sessionId: `sid-${name}`,
      userId: `user-${name}`,
      accountId: 1001,
      role: 'user',
      expiresAt: '2099-01-01T00:00:00.000Z',
    });
    const client = (name: string) => ({
      name,
      clientId: `cid-${name}`,
      clientToken: `demo-client-${name}`,
      clientSecret: `jsk_demo-secret-${name}`,
      grants: ['search'],
    });
    await writeFile(
      demoTokensPath,
      JSON.stringify({
        clients: { demoApp: client('user'), searchOnlyApp: client('searchOnly') },
        sessions: {
          user: session('user'),
          otherAccountUser: session('other'),
          operator: session('operator'),
          searchOnlyUser: session('searchOnly'),
        },
      }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prefers the flags, then CLIENT_TOKEN / SESSION_TOKEN / CLIENT_SECRET, then the demo user’s tokens', async () => {
    await expect(
      resolveTokens({ clientToken: 'flag-c' }, { SESSION_TOKEN: 'env-s', CLIENT_SECRET: 'jsk_env' }, demoTokensPath),
    ).resolves.toEqual({
      clientToken: 'flag-c',
      sessionToken: 'env-s',
      clientSecret: 'jsk_env',
      sources: { clientToken: 'flag', sessionToken: 'env' },
    });
    await expect(resolveTokens({}, {}, demoTokensPath)).resolves.toEqual({
      clientToken: 'demo-client-user',
      sessionToken: 'demo-session-user',
      clientSecret: 'jsk_demo-secret-user',
      sources: { clientToken: 'demo', sessionToken: 'demo' },
    });
  });

  it('puts the secret only into an event that carries X-Client-Secret, and no session token there', () => {
    const tokens = { clientToken: 'c-1', sessionToken: 's-1', clientSecret: 'jsk_1' };
    const opening = { ...searchEvent, headers: { 'X-Client-Token': 'x', 'X-Client-Secret': '<CLIENT_SECRET>' } };
    expect(applyTokens(opening, tokens).headers).toEqual({ 'X-Client-Token': 'c-1', 'X-Client-Secret': 'jsk_1' });
    expect(applyTokens(searchEvent, tokens).headers).not.toHaveProperty('X-Client-Secret');
  });

  it('leaves the event’s own headers when no token is known', async () => {
    await expect(resolveTokens({}, {}, join(dir, 'absent.json'))).resolves.toEqual({
      sources: { clientToken: 'event', sessionToken: 'event' },
    });
    await expect(resolveTokens({}, { CLIENT_TOKEN: '  ' }, undefined)).resolves.toEqual({
      sources: { clientToken: 'event', sessionToken: 'event' },
    });
  });

  it('replaces both token headers in headers and multiValueHeaders of an API event', () => {
    const event = applyTokens(searchEvent, { clientToken: 'c-123', sessionToken: 's-456' });
    expect(event.headers['X-Client-Token']).toBe('c-123');
    expect(event.headers['X-Session-Token']).toBe('s-456');
    expect(event.multiValueHeaders['X-Client-Token']).toEqual(['c-123']);
    expect(event.multiValueHeaders['X-Session-Token']).toEqual(['s-456']);
    expect(event.headers.Accept).toBe('application/json');
    expect(searchEvent.headers['X-Client-Token']).toBe('<CLIENT_TOKEN>');
  });

  it('replaces a header whatever the case of its name, leaving one header', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('x-client-token', 'X-CLIENT-TOKEN', 'X-Client-Token', 'x-Client-token'),
        fc.string({ minLength: 1 }),
        (name, token) => {
          const event = applyTokens(
            { httpMethod: 'POST', headers: { [name]: 'old' }, multiValueHeaders: { [name]: ['old'] } },
            { clientToken: token },
          );
          const headers = event.headers as Record<string, string>;
          const names = Object.keys(headers).filter((key) => key.toLowerCase() === 'x-client-token');
          expect(names).toEqual(['X-Client-Token']);
          expect(headers['X-Client-Token']).toBe(token);
        },
      ),
    );
  });

  it('adds the headers to an event that had none', () => {
    const event = applyTokens({ httpMethod: 'GET', headers: null, multiValueHeaders: null }, { sessionToken: 's' });
    expect(event).toMatchObject({
      headers: { 'X-Session-Token': 's' },
      multiValueHeaders: { 'X-Session-Token': ['s'] },
    });
  });

  it('leaves a stream event untouched', () => {
    expect(applyTokens(indexerEvent, { clientToken: 'c', sessionToken: 's' })).toBe(indexerEvent);
  });
});

describe('loading a handler', () => {
  it('has a handler module for every function it knows, and for no other', () => {
    expect(Object.keys(HANDLER_LOADERS).toSorted()).toEqual(INVOKABLE_FUNCTIONS.toSorted());
  });

  it.each(INVOKABLE_FUNCTIONS)('runs functions/handlers/%s.ts for its function', async (name) => {
    const handler = await loadHandler(name);
    const outcome = await invokeHandler(name, handler, {});
    expect(outcome).toEqual({ ok: true, result: name });
  });
});

describe('running a handler', () => {
  it('returns what the handler resolves with', async () => {
    const outcome = await invokeHandler('search', async () => ({ statusCode: 200, body: '{}' }), {});
    expect(outcome).toEqual({ ok: true, result: { statusCode: 200, body: '{}' } });
  });

  it('gives the handler a Lambda context with a remaining-time budget', async () => {
    let remaining = 0;
    let name = '';
    await invokeHandler(
      'indexer',
      async (_event, context) => {
        remaining = context.getRemainingTimeInMillis();
        name = context.functionName;
      },
      {},
    );
    expect(remaining).toBeGreaterThan(10_000);
    expect(remaining).toBeLessThanOrEqual(60_000);
    expect(name).toBe('jobs-api-local-indexer');
  });

  it('reports a thrown error the way Lambda does', async () => {
    class StoreDownError extends Error {
      public override name = 'StoreDownError';
    }
    const outcome = await invokeHandler(
      'reject',
      async () => {
        throw new StoreDownError('DynamoDB Local is not running');
      },
      {},
    );
    expect(outcome).toEqual({
      ok: false,
      error: { errorType: 'StoreDownError', errorMessage: 'DynamoDB Local is not running' },
    });
  });

  it('moves what the handler prints to standard error, keeping standard output for the result', async () => {
    const seen: string[] = [];
    const stderrWrite = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      seen.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const stdoutWrite = process.stdout.write;
    try {
      await withStdoutOnStderr(async () => {
        process.stdout.write('a log line\n');
      });
    } finally {
      process.stderr.write = stderrWrite;
    }
    expect(seen).toEqual(['a log line\n']);
    expect(process.stdout.write).toBe(stdoutWrite);
  });
});
