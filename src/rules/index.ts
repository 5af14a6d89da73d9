/**
 * The business modules of the ECN/ECO service, listed explicitly (no directory scanning).
 * Keyed `<entityType>.<action>` for bound actions.
 */
import type { ActionHandler } from '../core/service-context.js';
import { createEngChangeOrder } from './engChangeNotice.js';

/** Implementations of the model's bound actions. */
export const businessActions: ReadonlyMap<string, ActionHandler> = new Map<string, ActionHandler>([
  ['engChangeNotice.createEngChangeOrder', createEngChangeOrder],
]);
