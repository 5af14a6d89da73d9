/**
 * The error taxonomy of the service. Every error a request can cause is one of these classes;
 * `to-error-response.ts` is the only place that turns a thrown value into an OData error body
 * (OData JSON Format §21, conventions.md §3).
 */

/** One entry of `error.details` (OData JSON Format §21). */
export interface ErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

/** Base class: an error with an HTTP status, an OData/BC error code, and an optional target. */
export class ODataError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target?: string,
    readonly details?: readonly ErrorDetail[],
    /** Extra response headers (e.g. `Allow` on 405, `WWW-Authenticate` on 401: one value per line). */
    readonly headers?: Readonly<Record<string, string | readonly string[]>>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400 BadRequest_InvalidRequestUrl: malformed URL, query option or key literal, with the position. */
export class UriSyntaxError extends ODataError {
  constructor(message: string, readonly option: string, readonly position: number) {
    super(400, 'BadRequest_InvalidRequestUrl', message, option);
  }
}

/** 400 BadRequest_NotFound: a name in the URL that the model does not know (BC's code for it). */
export class UriSemanticError extends ODataError {
  constructor(message: string, target?: string, code = 'BadRequest_NotFound') {
    super(400, code, message, target);
  }
}

/** 400 (or 414) when a request exceeds a configured limit (URL length, depth, node count, $top...). */
export class QueryLimitError extends ODataError {
  constructor(message: string, target?: string, status = 400) {
    super(status, 'BadRequest_InvalidRequestUrl', message, target);
  }
}

/** 400 for an invalid request body; one detail per offending field. */
export class BodyValidationError extends ODataError {
  constructor(code: string, message: string, target?: string, details?: readonly ErrorDetail[]) {
    super(400, code, message, target, details);
  }
}

/** 404 for an unknown resource (entity set, navigation, key not found). */
export class NotFoundError extends ODataError {
  constructor(message: string, code = 'BadRequest_ResourceNotFound') {
    super(404, code, message);
  }
}

/** 405 BadRequest_MethodNotAllowed, with the `Allow` header listing what the route accepts. */
export class MethodNotAllowedError extends ODataError {
  constructor(message: string, allowed: readonly string[]) {
    super(405, 'BadRequest_MethodNotAllowed', message, undefined, undefined, { Allow: allowed.join(', ') });
  }
}

/** 406 when no representation the client accepts can be produced. */
export class NotAcceptableError extends ODataError {
  constructor(message: string) {
    super(406, 'BadRequest_NotAcceptable', message);
  }
}

/** 409 for a write that conflicts with the stored data (duplicate key or unique value, dangling reference). */
export class ConflictError extends ODataError {
  constructor(message: string, code = 'Internal_EntityWithSameKeyExists', target?: string) {
    super(409, code, message, target);
  }
}

/** 412 Request_EntityChanged: the If-Match ETag no longer matches (standard, not BC's 409). */
export class PreconditionFailedError extends ODataError {
  constructor(message = 'Another user has already changed the record.') {
    super(412, 'Request_EntityChanged', message);
  }
}

/** 412 Request_EntityChanged for If-None-Match: the record is in a version the request said it must not be in (`*`: it exists). */
export function ifNoneMatchFailed(): PreconditionFailedError {
  return new PreconditionFailedError('The record exists in a version the If-None-Match header excludes (* excludes every version), so the request was not carried out.');
}

/** 400 BadRequest_InvalidToken: an If-Match or If-None-Match value that is not `*` or a list of entity tags (RFC 9110 §8.8.3). */
export class MalformedEtagError extends ODataError {
  constructor(header: 'If-Match' | 'If-None-Match', value: string) {
    super(
      400,
      'BadRequest_InvalidToken',
      `The ${header} header ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)} is not an entity tag: send the entity's @odata.etag value as it was given (W/"..."), or *.`,
      header,
    );
  }
}

/** 428 BadRequest_InvalidToken: a write that needs If-Match came without it (standard, not BC's 400). */
export class PreconditionRequiredError extends ODataError {
  constructor() {
    super(
      428,
      'BadRequest_InvalidToken',
      'Could not validate the client concurrency token required by the service. ' +
        "Please provide a valid token in the client request: send the entity's @odata.etag value (or *) in the If-Match header.",
    );
  }
}

/** 413 BadRequest_PayloadTooLarge. */
export class PayloadTooLargeError extends ODataError {
  constructor(limitBytes: number) {
    super(413, 'BadRequest_PayloadTooLarge', `The request body exceeds the limit of ${limitBytes} bytes.`);
  }
}

/** 415 for a body whose Content-Type the route does not accept. */
export class UnsupportedMediaTypeError extends ODataError {
  constructor(message: string) {
    super(415, 'BadRequest_UnsupportedMediaType', message);
  }
}

/** 400 Application_DialogException: a business rule refused the change (BC's AL `Error()`). */
export class BusinessRuleError extends ODataError {
  constructor(message: string, target?: string) {
    super(400, 'Application_DialogException', message, target);
  }
}

/** 501 BadRequest_NotImplemented: a valid OData feature this service does not offer. */
export class NotImplementedError extends ODataError {
  constructor(message: string) {
    super(501, 'BadRequest_NotImplemented', message);
  }
}

/**
 * 400 BadRequest: a `$batch` body that cannot be read as a batch (OData Protocol §11.7; JSON Format
 * §19): bad framing, a part without a request line, a reference to nothing. Nothing of it ran.
 */
export class BatchFormatError extends ODataError {
  constructor(message: string, target?: string) {
    super(400, 'BadRequest', message, target);
  }
}

/**
 * 424 Failed Dependency: a request of a batch that was not run because a request it depends on failed,
 * or a request of a change set that was rolled back because another one of it failed (JSON Format §19).
 */
export class FailedDependencyError extends ODataError {
  constructor(message: string) {
    super(424, 'BadRequest_FailedDependency', message);
  }
}

/**
 * 503 with `Retry-After`: a read ran out of its time and was cancelled, or the read threads are busy
 * (conventions §11). The request may succeed later; nothing was changed.
 */
export class ServiceUnavailableError extends ODataError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, 'Internal_ServiceUnavailable', message, undefined, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 429: too many failed authentications from this client; `Retry-After` says when to try again. */
export class TooManyRequestsError extends ODataError {
  constructor(retryAfterSeconds: number) {
    super(429, 'BadRequest_TooManyRequests', 'Too many failed authentication attempts from this address; try again later.', undefined, undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/** 429 Application_TooManyRequests: one user's requests passed a fair-use limit (core/fair-use.ts); nothing was done. */
export class UserRequestLimitError extends ODataError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'Application_TooManyRequests', message, undefined, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** 401 Authentication_InvalidCredentials, with a challenge per accepted scheme (RFC 6750 §3, RFC 7617 §2; errors/challenges.ts). */
export class AuthenticationError extends ODataError {
  constructor(message: string, challenges: readonly string[]) {
    super(401, 'Authentication_InvalidCredentials', message, undefined, undefined, { 'WWW-Authenticate': challenges });
  }
}

/**
 * 403 Authorization_CompanyAccessDenied: valid credentials, but no grant in the company, or it does not
 * exist. No challenge: the credentials are right, and a 401 makes Power Query and Excel ask for them
 * again (Business Central answers 401). The message names neither case, so a company id reveals nothing.
 */
export class CompanyAccessDeniedError extends ODataError {
  constructor() {
    super(
      403,
      'Authorization_CompanyAccessDenied',
      'You do not have access to this company, or it does not exist. GET companies lists the companies you can use; ask an administrator for a grant in another one.',
    );
  }
}

/** 403 Authorization_PermissionDenied, in Business Central's wording. */
export class PermissionDeniedError extends ODataError {
  constructor(resource: string, access: 'Read' | 'Write', needed: string) {
    super(403, 'Authorization_PermissionDenied', `Sorry, the current permissions prevented the action. (${resource} ${access}: needs permission set ${needed})`);
  }
}
