/** Exhaustiveness guard for every `switch` over a discriminated union's `kind`. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
