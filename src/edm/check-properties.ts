/**
 * Checks of each structural property on its own: its type resolves, its facets fit the type,
 * and its flags do not contradict each other (a computed or autoModified property is read-only,
 * media belongs to Edm.Stream only). Defaults are checked by check-default.ts, computed paths by
 * check-computed.ts.
 */
import { checkDefault } from './check-default.js';
import type { EntityFile, MetadataDocument, PropertyFile } from './metadata-format.js';
import { isKnownType, type MetadataIndex, type Report } from './metadata-index.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';
import { PRIMITIVE_TYPE_NAMES } from './model.js';

/** Types that accept a Precision facet (CSDL §6.2.3); only Edm.Decimal has a Scale. */
const PRECISION_TYPES: readonly string[] = ['Edm.Decimal', 'Edm.DateTimeOffset', 'Edm.TimeOfDay'];

/**
 * The type must be a supported primitive or a declared enum type. The schema's pattern lets any
 * `Edm.<name>` through so that a misspelt primitive gets its "did you mean" here, not a list of all types.
 */
function checkType(index: MetadataIndex, file: string, property: PropertyFile, at: string, report: Report): boolean {
  if (isKnownType(index, property.type)) return true;
  if (property.type.startsWith('Edm.')) {
    report({ file, pointer: `${at}/type`, message: `Unknown type "${property.type}".`, fix: `${chooseFrom(property.type, PRIMITIVE_TYPE_NAMES, 'a supported Edm primitive')}.` });
    return false;
  }
  const isEntity = index.entityByName.has(property.type);
  report({
    file,
    pointer: `${at}/type`,
    message: isEntity ? `"${property.type}" is an entity type, not a property type.` : `Unknown type "${property.type}".`,
    fix: isEntity
      ? 'declare a navigation property to reach it, or use a primitive type.'
      : `use an Edm primitive type, or ${chooseFrom(property.type, [...index.enumByName.keys()], 'an enum type of enums/')}.`,
  });
  return false;
}

/** MaxLength only on strings, Precision/Scale only where CSDL allows them, Scale ≤ Precision. */
function checkFacets(file: string, property: PropertyFile, at: string, report: Report): void {
  if (property.maxLength !== undefined && property.type !== 'Edm.String') {
    report({ file, pointer: `${at}/maxLength`, message: `maxLength applies to Edm.String only, not ${property.type}.`, fix: 'remove "maxLength".' });
  }
  if (property.precision !== undefined && !PRECISION_TYPES.includes(property.type)) {
    report({
      file,
      pointer: `${at}/precision`,
      message: `precision applies to ${PRECISION_TYPES.join(', ')} only, not ${property.type}.`,
      fix: 'remove "precision".',
    });
  }
  if (property.scale !== undefined && property.type !== 'Edm.Decimal') {
    report({ file, pointer: `${at}/scale`, message: `scale applies to Edm.Decimal only, not ${property.type}.`, fix: 'remove "scale".' });
  } else if (property.scale !== undefined && property.precision !== undefined && property.scale > property.precision) {
    report({
      file,
      pointer: `${at}/scale`,
      message: `scale ${property.scale} exceeds precision ${property.precision}.`,
      fix: 'lower "scale" or raise "precision".',
    });
  }
}

/** Media belongs to Edm.Stream and to nothing else; a stream has no default, uniqueness or computation. */
function checkMedia(file: string, property: PropertyFile, at: string, report: Report): void {
  const isStream = property.type === 'Edm.Stream';
  if (property.media !== undefined && !isStream) {
    report({
      file,
      pointer: `${at}/media`,
      message: `media applies to Edm.Stream properties only, not ${property.type}.`,
      fix: 'remove "media", or set "type" to "Edm.Stream".',
    });
  }
  if (isStream && property.media === undefined) {
    report({
      file,
      pointer: at,
      message: 'An Edm.Stream property needs "media" (its content type and size limit).',
      fix: 'add "media": {"contentType": "...", "maxBytes": ...}.',
    });
  }
  if (!isStream) return;
  for (const member of ['default', 'unique', 'computed', 'autoModified'] as const) {
    if (property[member] !== undefined && property[member] !== false) {
      report({ file, pointer: `${at}/${member}`, message: `A media property cannot have "${member}".`, fix: `remove "${member}".` });
    }
  }
}

/** Computed and autoModified properties are set by the service: read-only, no default, not unique. */
function checkReadOnlyKinds(file: string, property: PropertyFile, at: string, report: Report): void {
  const readOnly = property.computed !== undefined ? 'computed' : property.autoModified === true ? 'autoModified' : undefined;
  if (readOnly === undefined) return;
  if (property.writable !== undefined && property.writable !== 'never') {
    report({
      file,
      pointer: `${at}/writable`,
      message: `A ${readOnly} property is read-only, but "writable" is "${property.writable}".`,
      fix: 'remove "writable" (it is implicitly "never").',
    });
  }
  if (property.default !== undefined) {
    report({ file, pointer: `${at}/default`, message: `A ${readOnly} property never uses a default.`, fix: 'remove "default".' });
  }
  if (readOnly === 'autoModified' && property.type !== 'Edm.DateTimeOffset') {
    report({
      file,
      pointer: `${at}/autoModified`,
      message: `autoModified stamps the time of each write; the type is ${property.type}.`,
      fix: 'use type Edm.DateTimeOffset, or remove "autoModified".',
    });
  }
  if (readOnly === 'computed' && property.autoModified === true) {
    report({
      file,
      pointer: `${at}/autoModified`,
      message: 'A computed property is not stored, so it cannot be autoModified.',
      fix: 'remove "autoModified".',
    });
  }
  if (readOnly === 'computed' && property.unique === true) {
    report({ file, pointer: `${at}/unique`, message: 'A computed property is not stored, so it cannot be unique.', fix: 'remove "unique".' });
  }
  // A lookup yields null when a hop is missing; so does firstNonEmpty with a null fallback.
  const computed = property.computed;
  const mayBeNull = computed !== undefined && (computed.kind === 'lookup' || (computed.kind === 'firstNonEmpty' && computed.fallback === null));
  if (mayBeNull && property.nullable === false) {
    report({
      file,
      pointer: `${at}/nullable`,
      message: 'This computed value is null when a navigation finds no row.',
      fix: 'remove "nullable": false (or give firstNonEmpty a non-null fallback).',
    });
  }
}

/** Runs the per-property checks of one entity file. */
export function checkProperties(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  doc.properties.forEach((property, position) => {
    const at = jsonPointer('properties', position);
    // Facets of an unknown type would only repeat the type problem.
    if (checkType(index, file, property, at, report)) checkFacets(file, property, at, report);
    checkMedia(file, property, at, report);
    checkReadOnlyKinds(file, property, at, report);
    checkDefault(index, file, doc, property, at, report);
  });
}
