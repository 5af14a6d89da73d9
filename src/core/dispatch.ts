/**
 * Routes a bound request to its operation by what the path addresses and the method (Olingo's
 * ODataDispatcher). Everything not listed answers 405 with the methods the resource allows.
 */
import { MethodNotAllowedError, NotImplementedError } from '../errors/odata-error.js';
import { assertNever } from '../util/assert-never.js';
import type { OperationContext } from './operation-context.js';
import type { ODataResponse } from './request.js';
import { readCollection, readCount, readEntity, readProperty } from './operations/read.js';
import { create, remove, update } from './operations/write.js';
import { readMedia, writeMedia } from './operations/media.js';
import { invokeAction } from './operations/action.js';

function methodNotAllowed(method: string, what: string, allowed: string[]): MethodNotAllowedError {
  return new MethodNotAllowedError(`'${method}' requests for ${what} are not allowed; use ${allowed.join(', ')}.`, allowed);
}

/** Runs the operation for the request's target and method (reads synchronously; writes give a promise). */
export function dispatch(ctx: OperationContext): ODataResponse | Promise<ODataResponse> {
  const method = ctx.req.method === 'HEAD' ? 'GET' : ctx.req.method;
  const target = ctx.path.target;
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  const setName = type?.entitySet ?? '';
  switch (target.kind) {
    case 'collection':
      if (method === 'GET') return readCollection(ctx);
      if (method === 'POST') return create(ctx);
      throw methodNotAllowed(method, `the collection '${setName}'`, type?.capabilities.insertable === false ? ['GET'] : ['GET', 'POST']);
    case 'entity':
      if (method === 'GET') return readEntity(ctx);
      if (method === 'PATCH') return update(ctx);
      if (method === 'PUT') return update(ctx, true);
      if (method === 'DELETE') return remove(ctx);
      throw methodNotAllowed(method, `a single '${type?.name ?? ''}' entity`, ['GET', 'PATCH', 'PUT', 'DELETE']);
    case 'count':
      if (method === 'GET') return readCount(ctx);
      throw methodNotAllowed(method, '$count', ['GET']);
    case 'action':
      if (method === 'POST') return invokeAction(ctx, target.action);
      throw methodNotAllowed(method, `the action '${target.action.qualifiedName}'`, ['POST']);
    case 'media':
      if (method === 'GET') return readMedia(ctx);
      if (method === 'PUT') return writeMedia(ctx);
      throw methodNotAllowed(method, `the media field '${target.property.name}'`, ['GET', 'PUT']);
    case 'property':
      if (method === 'GET') return readProperty(ctx);
      if (method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
        throw new NotImplementedError(`Writing a single property through its own URL is not supported; PATCH the entity with {"${target.property.name}": ...}.`);
      }
      throw methodNotAllowed(method, `the property '${target.property.name}'`, ['GET']);
    default:
      return assertNever(target, 'path target');
  }
}
