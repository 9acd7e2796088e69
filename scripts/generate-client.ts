/**
 * `npm run generate:client`: regenerates `client/schema.d.ts`, the TypeScript types of the typed API
 * client, from `openapi.yaml` with openapi-typescript. `--check` regenerates in memory only and fails
 * when the committed file is out of date.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { OPENAPI_YAML_PATH } from '../local/gateway/docs';
import { writeOrCheck } from './generated-files';

/** The generated types. */
export const CLIENT_SCHEMA = fileURLToPath(new URL('../client/schema.d.ts', import.meta.url));

const HEADER = `/**
 * Generated from openapi.yaml by \`npm run generate:client\` (openapi-typescript). Do not edit by hand:
 * change openapi.yaml and run the script again.
 */

`;

/** The text of `client/schema.d.ts` for a description. */
export const generateClientTypes = async (openapiYaml: string = OPENAPI_YAML_PATH): Promise<string> => {
  const ast = await openapiTS(pathToFileURL(openapiYaml), {
    // A documented default leaves a request field optional (the API fills it in).
    defaultNonNullable: false,
    alphabetize: false,
  });
  return HEADER + astToString(ast);
};

const main = async (): Promise<void> => {
  writeOrCheck([[CLIENT_SCHEMA, await generateClientTypes()]], 'npm run generate:client');
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
