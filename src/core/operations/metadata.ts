/**
 * The service document (OData JSON Format §5) and `$metadata` (CSDL XML by default; CSDL JSON only
 * when the request asks for JSON alone, conventions §1 — Power Query lists both and needs XML).
 */
import { NotAcceptableError } from '../../errors/odata-error.js';
import { toCsdlJson } from '../../serialize/csdl-json.js';
import { toCsdlXml } from '../../serialize/csdl-xml.js';
import { toOpenApi } from '../../serialize/openapi.js';
import { jsonContentType, negotiateJson, parseMediaRanges } from '../format.js';
import type { ODataRequest, ODataResponse } from '../request.js';
import type { ServiceContext } from '../service-context.js';

/**
 * GET `{root}/`: every entity set of the container (conventions §1: each also answers without a
 * company prefix), so clients that build their set list from it reach every set `$metadata` declares.
 */
export function serviceDocument(svc: ServiceContext, req: ODataRequest, format: string | undefined): ODataResponse {
  const f = negotiateJson(format, req.headers['accept']);
  const value = svc.model.entityTypes.map((t) => ({ name: t.entitySet, kind: 'EntitySet', url: t.entitySet }));
  const body = { '@odata.context': `${req.serviceRootUrl}/$metadata`, value };
  return { status: 200, headers: { 'Content-Type': jsonContentType(f) }, body: JSON.stringify(body) };
}

function wantsJson(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) {
    const f = format.toLowerCase();
    if (f === 'json' || f.startsWith('application/json')) return true;
    if (f === 'xml' || f.startsWith('application/xml')) return false;
    throw new NotAcceptableError(`$format=${format} is not available for $metadata; use xml or json.`);
  }
  if (accept === undefined || accept.trim() === '') return false;
  const types = parseMediaRanges(accept).map((r) => r.type);
  const xml = types.some((t) => t === 'application/xml' || t === 'text/xml' || t === 'application/*' || t === '*/*');
  const json = types.includes('application/json');
  if (!xml && !json) throw new NotAcceptableError(`$metadata is available as application/xml or application/json, not ${accept}.`);
  return json && !xml;
}

/** GET `{root}/$metadata`. */
export function metadataDocument(svc: ServiceContext, req: ODataRequest, format: string | undefined): ODataResponse {
  const json = wantsJson(format, req.headers['accept']);
  const key = json ? 'json' : 'xml';
  let body = svc.metadataCache.get(key);
  if (body === undefined) {
    body = json ? JSON.stringify(toCsdlJson(svc.model)) : toCsdlXml(svc.model);
    svc.metadataCache.set(key, body);
  }
  return { status: 200, headers: { 'Content-Type': json ? 'application/json' : 'application/xml' }, body };
}

/** GET `{root}/openapi.json`: the OpenAPI 3.1 description (serialize/openapi.ts), built once. */
export function openApiDocument(svc: ServiceContext): ODataResponse {
  let body = svc.metadataCache.get('openapi');
  if (body === undefined) {
    body = JSON.stringify(toOpenApi(svc.model, { publicMetadata: svc.publicMetadata }));
    svc.metadataCache.set('openapi', body);
  }
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body };
}
