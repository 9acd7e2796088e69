/**
 * openapi.yaml passes the linters of its ecosystem, run offline from devDependencies: Spectral with its
 * OpenAPI rules and the OWASP API Security ruleset (.spectral.yaml), and Redocly's `recommended` rules
 * (redocly.yaml). Every finding is fixed in the document or acknowledged in a ruleset file, and every
 * acknowledgement carries its reason as a comment right above it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { OPENAPI_YAML_PATH } from '../../local/gateway/docs';

const ROOT = dirname(OPENAPI_YAML_PATH);
const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** A CLI of a devDependency, run by this Node with its output captured whatever its exit code. */
const runCli = async (script: string, args: string[]): Promise<string> => {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(process.execPath, [require.resolve(script), ...args], { cwd: ROOT, env })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (stdout === undefined || stdout === '') throw error;
    return stdout;
  }
};

interface SpectralFinding {
  code: string;
  message: string;
  path: string[];
}

const spectral = async (document: string): Promise<string[]> => {
  const output = await runCli('@stoplight/spectral-cli/dist/index.js', [
    'lint',
    document,
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '--format',
    'json',
    '--quiet',
  ]);
  const findings = JSON.parse(output === '' ? '[]' : output) as SpectralFinding[];
  return findings.map((finding) => `${finding.code} at ${finding.path.join('.')}: ${finding.message}`);
};

interface RedoclyReport {
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

const redocly = async (document: string): Promise<string[]> => {
  const output = await runCli('@redocly/cli/bin/cli.js', ['lint', document, '--format', 'json']);
  const report = JSON.parse(output.slice(output.indexOf('{'))) as RedoclyReport;
  return report.problems.map(
    (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
  );
};

/**
 * The acknowledgements of a ruleset file that have no reason: each line that `acknowledges` must be
 * preceded, within its paragraph, by a comment, passing only over other acknowledgements and the lines
 * that merely `frame` them.
 */
const unexplained = (file: string, acknowledges: RegExp, frames: RegExp): string[] => {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  return lines.flatMap((line, index) => {
    if (!acknowledges.test(line)) return [];
    for (let above = index - 1; above >= 0; above -= 1) {
      const text = lines[above]!;
      if (text.trim().startsWith('#')) return [];
      if (!acknowledges.test(text) && !frames.test(text)) break;
    }
    return [`${file}:${index + 1} ${line.trim()}`];
  });
};

describe('the linters of the OpenAPI ecosystem', () => {
  it('find nothing in openapi.yaml that Spectral (spectral:oas and OWASP) reports', async () => {
    expect(await spectral(OPENAPI_YAML_PATH)).toEqual([]);
  });

  it('find nothing in openapi.yaml that Redocly (recommended) reports', async () => {
    expect(await redocly(OPENAPI_YAML_PATH)).toEqual([]);
  });

  it('still hold a new request body to the OWASP limits', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const document = join(folder, 'openapi.yaml');
    const original = readFileSync(OPENAPI_YAML_PATH, 'utf8');
    const unbounded = [
      '  /notes:',
      '    post:',
      '      operationId: addNote',
      '      summary: Add a note',
      '      description: A path whose body bounds nothing.',
      '      tags: [Review]',
      '      requestBody:',
      '        content:',
      '          application/json:',
      '            schema:',
      '              type: object',
      '              properties:',
      '                text: { type: string }',
      '                count: { type: integer, format: int32 }',
      '                tags: { type: array, items: { type: string, maxLength: 10 } }',
      '      responses:',
      "        '204':",
      '          description: Added.',
      '',
    ].join('\n');
    writeFileSync(document, original.replace('\npaths:\n', `\npaths:\n${unbounded}`));
    const rules = (await spectral(document)).map((finding) => finding.split(' at ')[0]);
    expect(rules.filter((rule) => rule?.startsWith('accepted-'))).toEqual([
      'accepted-string-limit',
      'accepted-integer-limit',
      'accepted-array-limit',
    ]);
  });

  it('acknowledge no finding without a reason', () => {
    expect([
      ...unexplained('.spectral.yaml', /^\s+\S+: off$/, /^\s+(- files: .*|rules:)$/),
      ...unexplained('.redocly.lint-ignore.yaml', /^\s+- '#\//, /^ {2}[\w.-]+:$/),
    ]).toEqual([]);
  });
});
