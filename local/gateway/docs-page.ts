/**
 * The reference page the local server shows at `GET /docs`: Swagger UI, loaded from the
 * `swagger-ui-dist` npm package (served by the local server under {@link DOCS_ASSETS_PREFIX}; no CDN),
 * rendering the description at `GET /openapi.json`.
 */

/** Where the page's scripts and styles are served. */
export const DOCS_ASSETS_PREFIX = '/docs/assets/';

/** The path of the machine-readable description. */
export const OPENAPI_JSON_PATH = '/openapi.json';

/** The files of `swagger-ui-dist` the page loads, by the name they are served under. */
export const SWAGGER_UI_FILES = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const satisfies Record<string, string>;

/** The name of the page's own start-up script. */
export const INIT_SCRIPT_NAME = 'init.js';

/**
 * The start-up script: renders the description with the API's two security schemes available under
 * "Authorize", no external validator badge (it would call out to the internet) and every operation
 * listed, not expanded.
 */
export const initScript = (): string => `"use strict";
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_JSON_PATH)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

/** The HTML of `GET /docs`. */
export const docsPage = (): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Jobs API reference</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PREFIX}swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PREFIX}favicon-32x32.png">
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PREFIX}swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="${DOCS_ASSETS_PREFIX}${INIT_SCRIPT_NAME}" charset="utf-8"></script>
  </body>
</html>
`;
