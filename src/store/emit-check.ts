/**
 * The contract of `ctx.emit` (hooks/types.ts): a rule may raise only events declared in metadata/events,
 * with exactly the declared payload fields, each a value of its declared type. A breach is a bug in the
 * rule, not a bad request: HookContractError (500), and the transaction rolls back.
 */
import { eventKey, type BusinessEvent, type EdmModel, type EventPayloadType } from '../edm/model.js';
import { GUID } from '../edm/values.js';
import { HookContractError } from '../hooks/run-hooks.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fits(type: EventPayloadType, value: unknown): boolean {
  switch (type) {
    case 'Guid':
      return typeof value === 'string' && GUID.test(value);
    case 'Text':
    case 'Code':
      return typeof value === 'string';
    case 'Integer':
    case 'BigInteger':
      return typeof value === 'number' && Number.isInteger(value);
    case 'Decimal':
      return typeof value === 'number' && Number.isFinite(value);
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Date':
      return typeof value === 'string' && DATE.test(value);
    case 'DateTime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
  }
}

/** The declared event of an emit call; throws HookContractError when the call does not match the declaration. */
export function checkEmitted(model: EdmModel, entityType: string, name: string, version: string, payload: Readonly<Record<string, unknown>>): BusinessEvent {
  const event = model.eventByKey.get(eventKey(name, version));
  if (event === undefined) {
    const known = model.events.map((e) => `${e.name} ${e.version}`).join(', ') || 'none';
    throw new HookContractError(`The hook of ${entityType} emitted the event ${name} version ${version}, which metadata/events does not declare (declared: ${known}).`);
  }
  const declared = event.payload.map((f) => f.name);
  const given = Object.keys(payload);
  const missing = declared.filter((n) => !given.includes(n));
  const extra = given.filter((n) => !declared.includes(n));
  if (missing.length > 0 || extra.length > 0) {
    throw new HookContractError(
      `The hook of ${entityType} emitted ${name} ${version} with payload fields (${given.join(', ')}); ${event.source} declares (${declared.join(', ')}).`,
    );
  }
  for (const field of event.payload) {
    if (!fits(field.type, payload[field.name])) {
      throw new HookContractError(`The hook of ${entityType} emitted ${name} ${version} with ${field.name} = ${JSON.stringify(payload[field.name])}, not a ${field.type}.`);
    }
  }
  return event;
}
