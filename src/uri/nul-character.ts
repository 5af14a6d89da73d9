/**
 * The NUL character (U+0000) in a URL. PostgreSQL's text cannot hold it, so the service keeps it out
 * of every value on either engine (bodies: validation/body-schemas.ts): a URL that carries one,
 * percent-encoded (`%00`) or raw (a `$batch` part's URL), is refused before it is parsed, where it would
 * otherwise reach a statement as a literal, a key or a company name.
 */
import { UriSyntaxError } from '../errors/odata-error.js';

/** Throws the 400 of a NUL character in `text`, the still-encoded path or query of a request. */
export function refuseNul(text: string, part: 'path' | 'query'): void {
  const encoded = text.indexOf('%00');
  const at = encoded >= 0 ? encoded : text.indexOf('\u0000');
  if (at < 0) return;
  throw new UriSyntaxError(`The URL's ${part} holds the NUL character (%00) at position ${at + 1}; no value of this service can contain it.`, part, at);
}
