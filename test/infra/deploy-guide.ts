/**
 * docs/deploy.md against the synthesized template: the guide's tables of outputs, routes, functions and
 * alarms must name exactly what the stack deploys. Each difference is one message naming the guide's
 * table and the row to add (or the stale row to remove), so whoever adds an endpoint, a function or an
 * alarm sees at once which line of the guide to write.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, unknown>;

/** The template's parts the comparison reads. */
export interface GuideTemplate {
  Resources: Record<string, { Type: string; Properties?: Json }>;
  Outputs?: Record<string, unknown>;
}

/** One endpoint of the route table and the function that must serve it. */
export interface ExpectedRoute {
  method: string;
  path: string;
  /** The logical id of the function serving it. */
  functionId: string;
}

export const GUIDE = 'docs/deploy.md';

/** The rows of the Markdown table whose header row is `header` (cells trimmed, header and rule skipped). */
export const tableRows = (markdown: string, header: string): string[][] | undefined => {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === header);
  if (start === -1) return undefined;
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .replace(/^\|/, '')
        .replace(/\|\s*$/, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
};

/** The `code` spans of a cell. */
const codeIn = (cell: string | undefined): string[] =>
  [...(cell ?? '').matchAll(/`([^`]+)`/g)].map(([, text]) => text!);

/** The path of an `AWS::ApiGateway::Resource` (or of the root), from its chain of `PathPart`s. */
const pathOf = (resources: GuideTemplate['Resources'], reference: unknown): string => {
  const id = (reference as { Ref?: string }).Ref;
  const resource = id === undefined ? undefined : resources[id];
  if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
  return `${pathOf(resources, resource.Properties?.ParentId)}/${String(resource.Properties?.PathPart)}`;
};

/** The logical id of the function a proxy integration invokes. */
const integratedFunction = (method: Json): string | undefined => {
  const text = JSON.stringify((method.Integration as Json | undefined)?.Uri ?? {});
  return /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(text)?.[1];
};

/**
 * The differences between the guide's four tables and the template: outputs and functions by name, every
 * endpoint of the route table with the function the template integrates for it (its own method or the
 * path's `ANY`), and every alarm by its construct id (`<function>Errors` rows expand over the functions).
 */
export const guideDifferences = (
  markdown: string,
  template: GuideTemplate,
  routes: readonly ExpectedRoute[],
  alarmIds: readonly string[],
): string[] => {
  const problems: string[] = [];
  const compare = (table: string, documented: string[], deployed: string[], rowFor: (name: string) => string) => {
    for (const name of deployed.filter((candidate) => !documented.includes(candidate))) {
      problems.push(`${GUIDE}, ${table} table: no row for ${name}; add ${rowFor(name)}`);
    }
    for (const name of documented.filter((candidate) => !deployed.includes(candidate))) {
      problems.push(`${GUIDE}, ${table} table: ${name} is not in the synthesized template; remove its row`);
    }
  };
  const table = (name: string, header: string): string[][] => {
    const rows = tableRows(markdown, header);
    if (rows === undefined) problems.push(`${GUIDE}: no ${name} table (a table headed "${header}")`);
    return rows ?? [];
  };

  const outputs = table('outputs', '| Output | Value |').flatMap((row) => codeIn(row[0]));
  compare('outputs', outputs, Object.keys(template.Outputs ?? {}), (key) => `| \`${key}\` | … |`);

  const functionRows = table('functions', '| Function | Runs |');
  const functions = functionRows.flatMap((row) => codeIn(row[0]));
  const deployedFunctions = Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([id]) => id);
  compare('functions', functions, deployedFunctions, (id) => `| \`${id}\` | … |`);

  const methods = Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map((resource) => resource.Properties ?? {});
  const servedBy = (route: ExpectedRoute): string | undefined => {
    const onPath = methods.filter((method) => pathOf(template.Resources, method.ResourceId) === route.path);
    const own = onPath.find((method) => method.HttpMethod === route.method);
    return integratedFunction(own ?? onPath.find((method) => method.HttpMethod === 'ANY') ?? {});
  };
  const routeRows = table('routes', '| Method | Path | Function |').map((row) => row.map((cell) => codeIn(cell)[0]));
  const rowOf = (route: ExpectedRoute) => `| \`${route.method}\` | \`${route.path}\` | \`${route.functionId}\` |`;
  for (const route of routes) {
    const deployedFunction = servedBy(route);
    if (deployedFunction !== route.functionId) {
      problems.push(
        `template: ${route.method} ${route.path} reaches ${deployedFunction ?? 'no function'}, not ${route.functionId}`,
      );
    }
    const row = routeRows.find(([method, path]) => method === route.method && path === route.path);
    if (row === undefined)
      problems.push(`${GUIDE}, routes table: no row for ${route.method} ${route.path}; add ${rowOf(route)}`);
    else if (row[2] !== route.functionId) {
      problems.push(`${GUIDE}, routes table: ${route.method} ${route.path} names ${row[2]}; write ${rowOf(route)}`);
    }
  }
  for (const [method, path] of routeRows) {
    if (!routes.some((route) => route.method === method && route.path === path)) {
      problems.push(`${GUIDE}, routes table: ${method} ${path} is not a route of the stack; remove its row`);
    }
  }

  const functionNames = deployedFunctions.map((id) => id.replace(/Function$/, ''));
  const alarms = table('alarms', '| Alarm | Fires when |')
    .flatMap((row) => codeIn(row[0]))
    .flatMap((name) =>
      name.includes('<function>') ? functionNames.map((fn) => name.replace('<function>', fn)) : [name],
    );
  compare('alarms', alarms, [...alarmIds], (id) => `| \`${id}\` | … |`);
  return problems;
};

/** The guide's text. */
export const readGuide = (root: string): string => readFileSync(join(root, GUIDE), 'utf8');
