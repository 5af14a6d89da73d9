/**
 * src/store/insert-entity.ts: with `guardReferences`, prepareInsert leaves a row's references to the
 * INSERT (written only if they hold: one statement instead of a lookup per reference and the INSERT),
 * unless a unique value is looked up after them; a guarded INSERT that writes nothing answers the
 * lookup's own 400 and writes nothing. On SQLite; insert-entity-postgres.test.ts runs the same cases
 * (insert-entity-cases.ts) on PostgreSQL.
 */
import { insertEntityCases } from './insert-entity-cases.js';

insertEntityCases('sqlite');
