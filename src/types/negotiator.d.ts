/**
 * Types of negotiator 1.x (jshttp's HTTP content negotiation, the one express uses), as far as the HTTP
 * layer uses it: @types/negotiator describes 0.6, which lacks the `preferred` tie-break of 1.x.
 */
declare module 'negotiator' {
  /** Tie-break among codings the client rates alike (negotiator 1.x). */
  interface EncodingOptions {
    readonly preferred?: readonly string[];
  }

  /** Negotiates over one request's Accept-* headers. */
  export default class Negotiator {
    constructor(request: { readonly headers: Readonly<Record<string, string | string[] | undefined>> });
    /** The acceptable codings among `available`, best first (RFC 9110 §12.5.3). */
    encodings(available?: readonly string[], options?: EncodingOptions): string[];
  }
}
