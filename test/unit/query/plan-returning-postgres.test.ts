/**
 * src/query/plan-returning.ts on PostgreSQL: the cases of plan-returning.test.ts (plan-returning-cases.ts)
 * on a database of the run's server (`npm run test:postgres`).
 */
import { planReturningCases } from './plan-returning-cases.js';

planReturningCases('postgres');
