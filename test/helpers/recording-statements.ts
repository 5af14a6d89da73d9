/**
 * Statements that record what they run, the reads a service's engine receives, and an entity type by
 * name: for tests that check the statements a write or a read makes.
 */
import type { Statements } from '../../src/db/engine.js';
import type { ReadRequest } from '../../src/db/engine.js';
import type { TestService } from './test-service.js';
import type { EdmModel, EntityType } from '../../src/edm/model.js';
import type { CompiledQuery } from '../../src/sql/compile.js';

/** `tx`, recording every statement it runs in `seen`. */
export function recording(tx: Statements, seen: CompiledQuery[]): Statements {
  return {
    get: (q) => (seen.push(q), tx.get(q)),
    all: (q) => (seen.push(q), tx.all(q)),
    run: (q) => (seen.push(q), tx.run(q)),
    runReturning: (q) => (seen.push(q), tx.runReturning(q)),
  };
}

/** What `body` returns, and the reads the engine of `t` received meanwhile. */
export async function recordingReads<T>(t: TestService, body: () => Promise<T>): Promise<{ value: T; reads: ReadRequest[] }> {
  const reads: ReadRequest[] = [];
  const runner = t.service.engine.reads;
  const run = runner.run.bind(runner);
  runner.run = (read) => (reads.push(read), run(read));
  try {
    return { value: await body(), reads };
  } finally {
    runner.run = run;
  }
}

/** The model's entity type `name` (throws when there is none). */
export function entityType(model: EdmModel, name: string): EntityType {
  const type = model.entityTypeByName.get(name);
  if (type === undefined) throw new Error(`no entity type ${name}`);
  return type;
}
