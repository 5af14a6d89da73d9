/**
 * Values that come now or later: SQLite answers statements synchronously and PostgreSQL with
 * promises (db/engine.ts). Code on the request path chains with `andThen`, which calls on at once for a
 * value and stays synchronous; code off it simply awaits either.
 */

/** A value now, or later. */
export type MaybePromise<T> = T | Promise<T>;

/** `f` of the value: at once when it is here, after it when it is a promise. */
export function andThen<T, U>(value: MaybePromise<T>, f: (v: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
