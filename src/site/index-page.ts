/**
 * `GET /`: a page for a person who opens the service's address in a browser (like SAP CAP's index
 * page): links to the service root, $metadata, the OpenAPI description, the API docs page and the
 * health checks, the entity sets, and how to get in with a token or from Excel.
 */
import type { EdmModel } from '../edm/model.js';
import { OPENAPI_PATH } from '../serialize/openapi.js';
import { DOCS_PATH } from './docs-page.js';
import { escapeHtml, pageStart } from './html.js';

/** The HTML of the index page. */
export function indexPage(model: EdmModel): string {
  const root = model.service.serviceRoot;
  const link = (href: string, text: string, note: string): string => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a> ${note}</li>`;
  const sets = model.entityTypes
    .map((t) => link(`${root}/${t.entitySet}`, t.entitySet, t.description === undefined ? '' : `&mdash; ${escapeHtml(t.description)}`))
    .join('\n');
  const name = model.app?.name ?? `${model.service.namespace} OData service`;
  const title = escapeHtml(name);
  const style = `<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.15rem; margin-top: 1.8rem; }
code { background: #f3f3f3; padding: 0 .25rem; border-radius: 3px; }
li { margin: .2rem 0; }
</style>`;
  return `${pageStart(name, `${DOCS_PATH}/favicon-32x32.png`, style)}<h1>${title}</h1>
<p>An OData 4.0 service. Service root: <code>${escapeHtml(root)}/</code></p>
<h2>Service</h2>
<ul>
${link(`${root}/`, 'Service document', '&mdash; the entity sets (no token needed)')}
${link(`${root}/$metadata`, '$metadata', '&mdash; the metadata document, CSDL XML')}
${link(`${root}${OPENAPI_PATH}`, 'openapi.json', '&mdash; the OpenAPI 3.1 description')}
${link(DOCS_PATH, 'API docs', '&mdash; browse every entity set and try requests with your token')}
${link('/health', '/health', '&mdash; the process is up')}
${link('/ready', '/ready', '&mdash; the database answers')}
</ul>
<h2>Entity sets</h2>
<p>Each needs a token; company-scoped sets are also at <code>${escapeHtml(root)}/${escapeHtml(model.company.entitySet)}({companyId})/&lt;set&gt;</code>, and the short form takes <code>?company=&lt;id or name&gt;</code>.</p>
<ul>
${sets}
</ul>
<h2>Credentials</h2>
<p>Ask an administrator for an API token (<code>ecn-odata token --user &lt;your user id&gt;</code>). Send it as
<code>Authorization: Bearer &lt;token&gt;</code>, or use Basic with your user id as user name and the token as password:
that is the <em>Basic</em> credential of Excel's and Power BI's OData feed (Data &rarr; Get Data &rarr; From OData Feed, URL <code>${escapeHtml(root)}/</code>).</p>
</body>
</html>
`;
}
