/**
 * Validates a POST/PATCH body against the model (conventions §2): unknown members → 400 BadRequest,
 * read-only members and generated keys ignored, wrong types/formats/lengths/enum members →
 * 400 Application_FieldValidationException, each naming the field in `target` (all problems in `details`);
 * Decimal values beyond their Precision or Scale too.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { EntityType, NavigationProperty, Property } from '../edm/model.js';
import { BodyValidationError, NotImplementedError, type ErrorDetail } from '../errors/odata-error.js';
import { bodySchema } from './body-schemas.js';
import { decimalFacetProblem } from '../edm/values.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** Whether the body creates a row or changes one. */
export type BodyMode = 'create' | 'update';

/** Validates request bodies; compiles one ajv validator per entity type, once. */
export class BodyValidator {
  private readonly ajv: Ajv;
  private readonly validators = new Map<EntityType, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(this.ajv);
  }

  /**
   * Checks a parsed JSON body; returns the property values it sets (instance annotations dropped).
   * With `nested`, the contained children of a create (deep insert, OData 4.01 §11.4.2.2) are put
   * there by navigation, unchecked; without it, or for other navigations, they are a 501.
   * Throws BodyValidationError (400) or NotImplementedError (501, deep update, other navigations).
   */
  validate(type: EntityType, body: unknown, mode: BodyMode, nested?: Map<NavigationProperty, unknown>): Map<Property, unknown> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new BodyValidationError('BadRequest', 'Invalid Request Body: the body must be a JSON object with the fields to set.');
    }
    const details: ErrorDetail[] = [];
    const values = new Map<Property, unknown>();
    const members = body as Record<string, unknown>;
    for (const name in members) {
      if (!Object.prototype.hasOwnProperty.call(members, name)) continue;
      const value = members[name];
      if (name.includes('@')) {
        if (name.endsWith('@odata.bind')) throw new NotImplementedError(`Binding '${name}' is not supported: only single-valued navigations can be bound; set the reference field instead.`);
        continue; // instance annotations such as @odata.etag or @odata.type are ignored
      }
      const prop = type.propertyByName.get(name);
      if (prop === undefined) {
        const nav = type.navigationByName.get(name);
        if (nav?.exposed === true) {
          // Deep insert of contained children (conventions §8): the caller validates each child as its own body.
          const deep = mode === 'create' && nav.containsTarget && nav.collection;
          if (deep && nested !== undefined) {
            nested.set(nav, value);
            continue;
          }
          throw new NotImplementedError(
            mode === 'update'
              ? `Deep update is not supported: send '${name}' records with their own requests.`
              : deep
                ? `'${name}' records cannot be created inside this request; send them with their own requests.`
                : `'${name}' records cannot be created inside a ${type.name}: only contained children can (deep insert); send them with their own requests.`,
          );
        }
        details.push({ code: 'BadRequest', target: name, message: `The property '${name}' does not exist on type '${type.qualifiedName}'.` });
        continue;
      }
      if (prop.storage.kind === 'media') {
        details.push({ code: 'BadRequest_InvalidOperation', target: name, message: `'${name}' is a media field: write it with PUT on its own URL (Content-Type ${prop.storage.contentType}).` });
        continue;
      }
      // Read-only values, keys the service generates, and create-only values in an update are ignored
      // (OData 4.01 Part 1 §11.4.2–11.4.3: the service MUST ignore them; conventions §2): clients send
      // whole entities back. A key that differs from the URL's is the write operation's 400.
      if (ignoredOnWrite(type, prop, mode)) continue;
      values.set(prop, value);
    }
    if (details.length === 0) details.push(...this.typeErrors(type, body, mode));
    if (details.length === 0) details.push(...decimalErrors(values), ...int64Errors(values));
    const first = details[0];
    if (first !== undefined) {
      const message = details.length === 1 ? first.message : `${first.message} (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''}; see details)`;
      throw new BodyValidationError(first.code, message, first.target, details);
    }
    return values;
  }

  private typeErrors(type: EntityType, body: object, mode: BodyMode): ErrorDetail[] {
    let validate = this.validators.get(type);
    if (validate === undefined) {
      validate = this.ajv.compile(bodySchema(type));
      this.validators.set(type, validate);
    }
    if (validate(body)) return [];
    const seen = new Set<string>();
    const out: ErrorDetail[] = [];
    for (const e of validate.errors ?? []) {
      const field = e.instancePath.split('/')[1] ?? '';
      if (field === '' || seen.has(field)) continue;
      seen.add(field);
      const prop = type.propertyByName.get(field);
      if (prop !== undefined && ignoredOnWrite(type, prop, mode)) continue;
      const value = (body as Record<string, unknown>)[field];
      out.push({ code: 'Application_FieldValidationException', target: field, message: describeError(field, prop, value, e) });
    }
    return out;
  }
}

/** Precision and Scale of the Decimal values a schema-valid body sets (JSON Schema cannot count digits). */
function decimalErrors(values: ReadonlyMap<Property, unknown>): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [prop, value] of values) {
    if (prop.type.kind !== 'primitive' || prop.type.name !== 'Edm.Decimal' || (prop.precision === undefined && prop.scale === undefined)) continue;
    if (typeof value !== 'number' && typeof value !== 'string') continue;
    const problem = decimalFacetProblem(value, prop.precision, prop.scale);
    if (problem !== undefined) out.push({ code: 'Application_FieldValidationException', target: prop.name, message: `The value ${JSON.stringify(value)} of field '${prop.name}' ${problem}.` });
  }
  return out;
}

const INT64_MAX = 9223372036854775807n;

/** Edm.Int64 values sent as strings (IEEE754Compatible) outside the 64-bit range the schema's pattern cannot bound. */
function int64Errors(values: ReadonlyMap<Property, unknown>): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [p, v] of values) {
    if (p.type.kind !== 'enum' && p.type.name === 'Edm.Int64' && typeof v === 'string' && /^[+-]?\d+$/.test(v)) {
      const n = BigInt(v);
      if (n > INT64_MAX || n < -INT64_MAX - 1n) out.push({ code: 'Application_FieldValidationException', target: p.name, message: `The value "${v}" of field '${p.name}' is outside the range of Edm.Int64.` });
    }
  }
  return out;
}

/** true when a body's value for `prop` is ignored (see validate): read-only, a generated key, or create-only in an update. */
export function ignoredOnWrite(type: EntityType, prop: Property, mode: BodyMode): boolean {
  if (prop.writable === 'never') return true;
  if (mode === 'update') return prop.writable === 'create' || prop === type.key;
  return prop === type.key && prop.default?.kind === 'guid';
}

function describeError(field: string, prop: Property | undefined, value: unknown, e: ErrorObject): string {
  const shown = JSON.stringify(value);
  if (prop === undefined) return `The value ${shown} of '${field}' is invalid.`;
  if (value === null && !prop.nullable) return `The field '${field}' cannot be null.`;
  const t = prop.type;
  if (t.kind === 'enum') {
    return `The value ${shown} is not a member of '${t.enumType.qualifiedName}' for field '${field}'. The existing members are: ${t.enumType.members.map((m) => m.encoded).join(', ')}.`;
  }
  if (t.name === 'Edm.String' && typeof value === 'string' && value.includes('\u0000')) {
    return `The field '${field}' contains the NUL character (U+0000), which no stored text can hold.`;
  }
  const unpaired = t.name === 'Edm.String' && typeof value === 'string' ? /\p{Cs}/u.exec(value) : null;
  if (unpaired !== null) {
    const code = unpaired[0].charCodeAt(0).toString(16).toUpperCase();
    return `The field '${field}' contains an unpaired surrogate (\\u${code} at position ${unpaired.index + 1}), which is not a character: text must be well-formed Unicode.`;
  }
  if (t.name === 'Edm.String' && typeof value === 'string' && prop.maxLength !== undefined && value.length > prop.maxLength) {
    return `The length of the string is ${value.length}, but it must be less than or equal to ${prop.maxLength} characters. Field: '${field}'.`;
  }
  const expected: Record<string, string> = {
    'Edm.Guid': 'a GUID such as "2f0c0a6e-1b2c-4d5e-8f90-0123456789ab"',
    'Edm.String': 'a string',
    'Edm.Boolean': 'true or false',
    'Edm.Int32': 'a whole number between -2147483648 and 2147483647',
    'Edm.Int64': 'a whole number',
    'Edm.Decimal': 'a number',
    'Edm.Double': 'a number',
    'Edm.Date': 'a date such as "2024-01-15"',
    'Edm.DateTimeOffset': 'a date and time with offset such as "2024-01-15T10:30:00Z"',
    'Edm.TimeOfDay': 'a time such as "10:30:00"',
  };
  return `The value ${shown} of field '${field}' is not valid: expected ${expected[t.name] ?? t.name}${e.keyword === 'format' ? '' : ''}.`;
}
