/**
 * `npm run generate:client`: regenerates `client/schema.d.ts`, the TypeScript types of the typed API
 * client, from `openapi.yaml` with openapi-typescript. `--check` regenerates in memory only and fails
 * when the committed file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** The description the client is generated from. */
export const OPENAPI_YAML = fileURLToPath(new URL('../openapi.yaml', import.meta.url));

/** The generated types. */
export const CLIENT_SCHEMA = fileURLToPath(new URL('../client/schema.d.ts', import.meta.url));

const HEADER = `/**
 * Generated from openapi.yaml by \`npm run generate:client\` (openapi-typescript). Do not edit by hand:
 * change openapi.yaml and run the script again.
 */

`;

/** The text of `client/schema.d.ts` for a description. */
export const generateClientTypes = async (openapiYaml: string = OPENAPI_YAML): Promise<string> => {
  const ast = await openapiTS(pathToFileURL(openapiYaml), {
    // A documented default leaves a request field optional (the API fills it in).
    defaultNonNullable: false,
    alphabetize: false,
  });
  return HEADER + astToString(ast);
};

const main = async (): Promise<void> => {
  const generated = await generateClientTypes();
  if (process.argv.includes('--check')) {
    const current = readFileSync(CLIENT_SCHEMA, 'utf8');
    if (current !== generated) {
      console.error('client/schema.d.ts is out of date: run `npm run generate:client` and commit the result.');
      process.exitCode = 1;
      return;
    }
    console.log('client/schema.d.ts is up to date.');
    return;
  }
  writeFileSync(CLIENT_SCHEMA, generated);
  console.log(`Wrote ${CLIENT_SCHEMA}`);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
