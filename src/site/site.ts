/**
 * The service's pages outside the OData service root: the index page at `/`, the API docs page at
 * `/docs`, and `/health` and `/ready` (conventions §9). None needs credentials, and each answers only
 * GET and HEAD. The HTTP layer asks here only for paths outside the service root, so OData requests
 * never pass through it.
 */
import type { Engine } from '../db/engine.js';
import type { EdmModel } from '../edm/model.js';
import type { RefusalLog } from '../errors/refusal-log.js';
import type { ODataResponse } from '../core/request.js';
import { MethodNotAllowedError } from '../errors/odata-error.js';
import { DOCS_PATH, DocsPage } from './docs-page.js';
import { health, ready } from './health.js';
import { htmlResponse } from './html.js';
import { indexPage } from './index-page.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/** The pages of one service. */
export class Site {
  private readonly docs: DocsPage;
  private index: ODataResponse | undefined;

  constructor(private readonly service: { readonly model: EdmModel; readonly engine: Engine; readonly context: { readonly refusals: Pick<RefusalLog, 'refused'> } }) {
    this.docs = new DocsPage(service.model);
  }

  /** The response for `path` (without query), undefined when the site has no such page. */
  handle(method: string, path: string): MaybePromise<ODataResponse> | undefined {
    const page = this.page(path);
    if (page === undefined) return undefined;
    if (method !== 'GET' && method !== 'HEAD') throw new MethodNotAllowedError(`'${method}' requests for ${path} are not allowed; use GET.`, ['GET', 'HEAD']);
    return page();
  }

  /** What answers `path`, called only once the method is known to be allowed. */
  private page(path: string): (() => MaybePromise<ODataResponse>) | undefined {
    if (path === '/') return () => (this.index ??= htmlResponse(indexPage(this.service.model)));
    if (path === '/health') return health;
    if (path === '/ready') return () => ready(this.service.engine.db, this.service.context.refusals, () => this.service.engine.replicaStatus());
    if (path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`)) {
      const file = this.docs.get(path.slice(DOCS_PATH.length));
      return file === undefined ? undefined : () => file;
    }
    return undefined;
  }
}
