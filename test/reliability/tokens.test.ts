/**
 * Secrets stay secret: with the most talkative logging there is (DEBUG, and Powertools logging every
 * incoming event with its headers) the tokens of the callers never reach the logs, whatever the
 * request's outcome; the auth table holds only their SHA-256 hashes; and no code compares a token
 * with a stored value — tokens are hashed and looked up by key, so nothing compares secret bytes
 * whose timing an attacker could measure.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import { makeFile, makeJob } from '../support/jobs';
import { localClient } from '../support/dynamo';
import { type Harness, startHarness, type Tokens, validHeaders } from './support/harness';

const ROOT = join(import.meta.dirname, '..', '..');

let harness: Harness;
let user: Tokens;
let searchOnly: Tokens;
let fileId: number;

beforeAll(async () => {
  harness = await startHarness();
  const job = makeJob({ accountId: 77, status: 'CJ_REVIEWING', files: [makeFile()] });
  await harness.seed([job]);
  fileId = job.files[0]!.id;
  user = await harness.issue({ accountId: 77 });
  searchOnly = await harness.issue({ accountId: 77, grants: ['search'] });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

/** Runs `work` and returns everything written to standard output, standard error and the console meanwhile. */
const captureOutput = async (work: () => Promise<void>): Promise<string> => {
  const lines: string[] = [];
  const record = (...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }),
    ...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(record),
    ),
  ];
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('\n');
};

describe('tokens in logs', () => {
  it('never prints a token, with every event logged, whatever the outcome', async () => {
    const unknownSession = { ...user, sessionToken: `${user.sessionToken.slice(0, 20)}unknownsessiontokenxx` };
    const answers: number[] = [];
    const output = await captureOutput(async () => {
      const send = async (
        path: '/search' | '/search/fields' | '/reject',
        tokens: Tokens,
        body?: string,
        extra = {},
      ) => {
        const method = path === '/search/fields' ? 'GET' : 'POST';
        const headers = { ...validHeaders(tokens, method), ...extra };
        const answer = await harness.invoke(path, { method, headers, body: body ?? null });
        answers.push(answer.status);
      };
      await send('/search/fields', user);
      await send('/search', user, '{"query":"spring"}');
      await send('/reject', user, JSON.stringify({ files: [{ fileId, customRejection: 'Redo' }] }));
      await send('/reject', searchOnly, JSON.stringify({ files: [{ fileId, customRejection: 'Redo' }] }));
      await send('/search', unknownSession, '{}');
      await send('/search', user, '{"query": ');
      await send('/search', user, '{"page": -1}');
      await send('/reject', user, JSON.stringify({ files: [{ fileId: 1, customRejection: 'Redo' }] }));
      await send('/search', user, '{}', { Accept: 'text/html' });
      // Repeated header lines (multiValueHeaders) and lower-case names.
      await harness.invoke('/search', {
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-client-token': [searchOnly.clientToken, user.clientToken],
          'x-session-token': [user.sessionToken],
        },
        body: '{}',
      });
    });
    expect(answers).toEqual([200, 200, 200, 403, 401, 400, 400, 404, 406]);
    expect(output, 'the capture saw the logged events').toContain('"message":"Lambda invocation event"');
    expect(output).toContain('[REDACTED]');
    for (const token of [user.clientToken, user.sessionToken, searchOnly.clientToken, searchOnly.sessionToken]) {
      expect(output).not.toContain(token);
    }
    expect(output).not.toContain(unknownSession.sessionToken);
  });
});

describe('tokens at rest', () => {
  it('keeps only SHA-256 hashes of tokens in the auth table', async () => {
    const { Items } = await localClient().send(new ScanCommand({ TableName: harness.tables.authTable }));
    const stored = JSON.stringify(Items);
    for (const token of [user.clientToken, user.sessionToken, searchOnly.clientToken, searchOnly.sessionToken]) {
      expect(stored).not.toContain(token);
      expect(stored).toContain(createHash('sha256').update(token).digest('hex'));
    }
  });
});

describe('token comparison', () => {
  const sourceFiles = (directory: string): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });

  /** Whether an expression is a literal, `undefined`, or a `typeof`: comparing a token with one leaks nothing. */
  const harmless = (node: ts.Expression): boolean =>
    ts.isStringLiteralLike(node) ||
    ts.isNumericLiteral(node) ||
    node.kind === ts.SyntaxKind.NullKeyword ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword ||
    (ts.isIdentifier(node) && node.text === 'undefined') ||
    ts.isTypeOfExpression(node);

  /** Names of a secret token value (`clientToken`, `sessionToken`, `token`), not of its hash or of token files. */
  const SECRET = /token$/i;
  const namesSecret = (node: ts.Expression): boolean => {
    const text = ts.isPropertyAccessExpression(node) ? node.name.text : ts.isIdentifier(node) ? node.text : '';
    return SECRET.test(text);
  };

  const EQUALITY = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
  ]);
  const STRING_COMPARISONS = new Set(['localeCompare', 'startsWith', 'endsWith', 'includes', 'indexOf']);

  /** Every place in a source file where a token value is compared with something that is not a literal. */
  const tokenComparisons = (path: string): string[] => {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const where = (node: ts.Node) =>
      `${relative(ROOT, path)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`;
    const visit = (node: ts.Node): void => {
      if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
        const [left, right] = [node.left, node.right];
        if ((namesSecret(left) && !harmless(right)) || (namesSecret(right) && !harmless(left))) found.push(where(node));
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        STRING_COMPARISONS.has(node.expression.name.text) &&
        (namesSecret(node.expression.expression) || node.arguments.some((argument) => namesSecret(argument)))
      ) {
        found.push(where(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  };

  it('never compares a token value directly anywhere in the service, the local stack or the CLI', () => {
    const files = ['functions', 'local', 'bin'].flatMap((directory) => sourceFiles(join(ROOT, directory)));
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap(tokenComparisons)).toEqual([]);
  });

  it('finds such a comparison when there is one (the check itself works)', () => {
    const probe = join(ROOT, 'test', 'reliability', 'support', 'token-comparison.fixture.ts');
    expect(tokenComparisons(probe)).toEqual([
      expect.stringContaining('clientToken === stored.clientToken'),
      expect.stringContaining('sessionToken.startsWith(prefix)'),
    ]);
  });

  it('authenticates by the SHA-256 of each token: the only way a token meets stored data', () => {
    const authenticate = readFileSync(join(ROOT, 'functions', 'auth', 'authenticate.ts'), 'utf8');
    expect(authenticate).toMatch(/hashToken\(clientToken\)/);
    expect(authenticate).toMatch(/hashToken\(sessionToken\)/);
    expect(authenticate).not.toMatch(/getClient\(clientToken\)|getSession\(sessionToken\)/);
  });
});
