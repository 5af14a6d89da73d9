/**
 * The core's input and output: an OData request in, an OData response out. Only `http/` knows express;
 * tests drive `handle()` with these objects directly, without a socket.
 */

/** An HTTP request as the core sees it. */
export interface ODataRequest {
  /** Upper-case method. */
  readonly method: string;
  /** Path below the service root, still percent-encoded, starting with `/` (or empty). */
  readonly path: string;
  /** Raw query string without `?`, still percent-encoded. */
  readonly rawQuery: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Raw body bytes, when the request had a body. */
  readonly body?: Buffer;
  /** Absolute URL of the service root, e.g. `http://127.0.0.1:8080/api/v2.0` (no trailing slash). */
  readonly serviceRootUrl: string;
  /** Correlation id of the request (logged, and named in 500 messages). */
  readonly requestId: string;
  /** The client's network address (for logs and rate limits), when known. */
  readonly clientAddress?: string;
  /**
   * true when the request was read from a socket in the current event-loop turn (the HTTP layer sets
   * it): everything committed before it was sent is then in the turn's shared read snapshot, which
   * its reads may join (db/sqlite/sqlite-shared-reads.ts). Otherwise its first read sees the newest data.
   */
  readonly turnSnapshot?: boolean;
}

/** The response the core produces. */
export interface ODataResponse {
  readonly status: number;
  /** Header values by name; a list is sent as one header line per value (`WWW-Authenticate`). */
  readonly headers: Record<string, string | readonly string[]>;
  readonly body?: string | Buffer;
}
