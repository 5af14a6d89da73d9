/**
 * src/store/insert-entity.ts on PostgreSQL: the cases of insert-entity.test.ts (insert-entity-cases.ts) on a
 * database of the run's server (`npm run test:postgres`).
 */
import { insertEntityCases } from './insert-entity-cases.js';

insertEntityCases('postgres');
