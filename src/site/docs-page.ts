/**
 * The API docs page (`GET /docs`): Swagger UI, served from the swagger-ui-dist package in
 * node_modules (never from a CDN), pointed at `{base}/openapi.json`. A person clicks Authorize,
 * pastes a token (or a user id and token for Basic) and tries any request. The page's own script is a
 * file too (docs.js), so the Content-Security-Policy can forbid inline scripts; Swagger UI's call to
 * an online validator is switched off, so the page talks to nothing but the service.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { EdmModel } from '../edm/model.js';
import type { ODataResponse } from '../core/request.js';
import { OPENAPI_PATH } from '../serialize/openapi.js';
import { htmlResponse, pageStart } from './html.js';

/** Where the docs page is served. */
export const DOCS_PATH = '/docs';

/** The files of swagger-ui-dist the page uses, with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** The folder of the installed swagger-ui-dist. */
function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The docs page's HTML. */
function pageHtml(model: EdmModel): string {
  return `${pageStart(`${model.app?.name ?? model.service.namespace} API`, `${DOCS_PATH}/favicon-32x32.png`, `<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">`)}<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/docs.js"></script>
</body>
</html>
`;
}

/** The page's script: Swagger UI on the service's OpenAPI description, ready to try requests. */
function pageScript(model: EdmModel): string {
  const config = {
    url: `${model.service.serviceRoot}${OPENAPI_PATH}`,
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'none',
    filter: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    persistAuthorization: false,
    validatorUrl: null,
  };
  return `window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, { presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' }));\n`;
}

/** The docs page and its files, read once (the bundle is 1.5 MB; the HTTP layer compresses it). */
export class DocsPage {
  private readonly files = new Map<string, ODataResponse>();

  constructor(private readonly model: EdmModel) {}

  /** The response for a path below DOCS_PATH (`''` or `/` for the page), or undefined when there is no such file. */
  get(subPath: string): ODataResponse | undefined {
    const cached = this.files.get(subPath);
    if (cached !== undefined) return cached;
    const made = this.make(subPath);
    if (made !== undefined) this.files.set(subPath, made);
    return made;
  }

  private make(subPath: string): ODataResponse | undefined {
    if (subPath === '' || subPath === '/') return htmlResponse(pageHtml(this.model));
    if (subPath === '/docs.js') return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }, body: pageScript(this.model) };
    const name = subPath.slice(1);
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) return undefined;
    // The version of swagger-ui-dist only changes with a reinstall, which restarts the service.
    return { status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }, body: fs.readFileSync(path.join(swaggerUiDir(), name)) };
  }
}
