/** Statements that record what they run, and an entity type by name: for tests that check the statements a write makes. */
import type { Statements } from '../../src/db/engine.js';
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

/** The model's entity type `name` (throws when there is none). */
export function entityType(model: EdmModel, name: string): EntityType {
  const type = model.entityTypeByName.get(name);
  if (type === undefined) throw new Error(`no entity type ${name}`);
  return type;
}
