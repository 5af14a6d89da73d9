/**
 * The business rules of the ECN/ECO service: one hook module per entity type, listed explicitly (no
 * directory scanning, no decorators, no naming conventions). `createService` checks the list against
 * the model at start-up. Adding a rule module is adding it here.
 * The webhook subscription's security checks are not here: they are framework (src/events/subscription-checks.ts)
 * and run whatever this list says.
 */
import type { EntityHooks } from '../hooks/types.js';
import { engChangeNotice } from './engChangeNotice.js';
import { engChangeOrder } from './engChangeOrder.js';
import { engChangeOrderTask } from './engChangeOrderTask.js';
import { engChangeOrderTaskPredecessor } from './engChangeOrderTaskPredecessor.js';

/** Every hook module of the service. */
export const businessRules: readonly EntityHooks[] = [engChangeNotice, engChangeOrder, engChangeOrderTask, engChangeOrderTaskPredecessor];
