/**
 * Command-line flag parsing on node:util parseArgs (strict): an unknown or malformed flag is a
 * one-line usage error (exit code 2), never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A usage error: printed as one line, exit code 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` for a command with the given flags; `--help` is always accepted. */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O): { values: Record<string, string | boolean | undefined>; help: boolean } {
  try {
    const { values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    const v = values as Record<string, string | boolean | undefined>;
    return { values: v, help: v['help'] === true };
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw new UsageError(`ecn-odata ${command}: ${msg}. Try 'ecn-odata ${command} --help'.`);
  }
}

/** A TCP port flag value (0 = any free port), or a UsageError. */
export function intFlag(command: string, name: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(`ecn-odata ${command}: --${name} must be a whole number between 0 and 65535, got '${String(value)}'.`);
  }
  return n;
}
