/**
 * Cross-file checks of the declarations themselves: file names, unique type, set, member and action
 * names, keys, default orderings, and the service settings that name other declarations.
 */
import path from 'node:path';
import { encodeODataName, isSimpleIdentifier } from './encode-name.js';
import { isStored, navigationNames, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import type { EntityFile, MetadataDocument } from './metadata-format.js';
import { jsonPointer } from './model-error.js';
import { chooseFrom } from './suggest-name.js';

/** Key types the framework supports (GUIDs as BC recommends, or codes). */
const KEY_TYPES: readonly string[] = ['Edm.Guid', 'Edm.String'];

/** The file must be named after the declaration, so that a name can be found by its file. */
function checkFileName(document: MetadataDocument<{ readonly name: string }>, report: Report): void {
  const fileName = path.basename(document.file, '.json');
  if (fileName !== document.doc.name) {
    report({
      file: document.file,
      pointer: '/name',
      message: `The name "${document.doc.name}" differs from the file name "${fileName}.json".`,
      fix: `rename the file to ${document.doc.name}.json, or set "name" to "${fileName}".`,
    });
  }
}

/** Types and actions share one CSDL namespace, so their names must be unique together. */
function checkTypeNames(index: MetadataIndex, report: Report): void {
  const service = index.files.service;
  // The container is a schema child too (CSDL §13), so it takes part in the same name space.
  const declaredIn = new Map<string, string>([[service.doc.containerName, `${service.source} (containerName)`]]);
  // A per-row secret declares the schema term `secret` (csdl-facts.ts), which shares the name space too.
  const withSecret = index.files.entities.find((document) => document.doc.secret !== undefined);
  if (withSecret !== undefined) declaredIn.set('secret', `${withSecret.source} (the term of its "secret")`);
  for (const document of [...index.files.enums, ...index.files.entities]) {
    const other = declaredIn.get(document.doc.name);
    if (other !== undefined) {
      report({
        file: document.file,
        pointer: '/name',
        message: `The type name "${document.doc.name}" is already declared in ${other}.`,
        fix: 'give one of the two types another name (and rename its file).',
      });
    } else {
      declaredIn.set(document.doc.name, document.source);
    }
  }
}

/** Enum members: their encoded names must be valid identifiers (CSDL limits them to 128 characters). */
function checkEnumMembers(index: MetadataIndex, report: Report): void {
  for (const document of index.files.enums) {
    document.doc.members.forEach((member, position) => {
      if (!isSimpleIdentifier(encodeODataName(member))) {
        report({
          file: document.file,
          pointer: jsonPointer('members', position),
          message: `The member "${member}" encodes to "${encodeODataName(member)}", longer than 128 characters.`,
          fix: 'shorten the member name.',
        });
      }
    });
  }
}

/** Service settings that name other declarations, and unique number series codes. */
function checkService(index: MetadataIndex, report: Report): void {
  const { file, doc } = index.files.service;
  const company = index.entityByName.get(doc.companyEntityType);
  if (company === undefined) {
    report({
      file,
      pointer: '/companyEntityType',
      message: `No entity type "${doc.companyEntityType}" is declared.`,
      fix: `${chooseFrom(doc.companyEntityType, [...index.entityByName.keys()])}, or add entities/${doc.companyEntityType}.json.`,
    });
  } else if (company.doc.scope !== 'global') {
    report({
      file: company.file,
      pointer: '/scope',
      message: `The company entity type must be global (it is the scope of company data, named in service.json).`,
      fix: 'set "scope" to "global".',
    });
  }
  if (company !== undefined && !company.doc.properties.some((p) => p.name === 'name' && p.type === 'Edm.String')) {
    report({
      file: company.file,
      pointer: '/properties',
      message: 'The company entity type needs an Edm.String property "name" (unscoped URLs name a company by it: ?company=<name>).',
      fix: 'add { "name": "name", "type": "Edm.String", "nullable": false, "unique": true }.',
    });
  }
  checkNumberSeriesStore(index, report);
  const codes = new Set<string>();
  doc.numberSeries.forEach((series, position) => {
    if (codes.has(series.code)) {
      report({
        file,
        pointer: jsonPointer('numberSeries', position, 'code'),
        message: `The number series "${series.code}" is declared twice.`,
        fix: 'remove one of them or give it another code.',
      });
    }
    codes.add(series.code);
  });
}

/** The number-series store: a company-scoped type with code, prefix, width and lastNumber; required when a default uses a series. */
function checkNumberSeriesStore(index: MetadataIndex, report: Report): void {
  const { file, doc } = index.files.service;
  const name = doc.numberSeriesEntityType;
  const used = [...index.entityByName.values()].some((e) => e.doc.properties.some((p) => p.default?.kind === 'numberSeries'));
  if (name === undefined) {
    if (used) {
      report({ file, pointer: '', message: 'A default of kind numberSeries is used, but no entity type stores the counters.', fix: 'add "numberSeriesEntityType": "<type with code, prefix, width, lastNumber>".' });
    }
    return;
  }
  const store = index.entityByName.get(name);
  if (store === undefined) {
    report({ file, pointer: '/numberSeriesEntityType', message: `No entity type "${name}" is declared.`, fix: `${chooseFrom(name, [...index.entityByName.keys()])}.` });
    return;
  }
  const need: Record<string, string[]> = { code: ['Edm.String'], prefix: ['Edm.String'], width: ['Edm.Int32', 'Edm.Int64'], lastNumber: ['Edm.Int32', 'Edm.Int64'] };
  for (const [prop, types] of Object.entries(need)) {
    const p = store.doc.properties.find((candidate) => candidate.name === prop);
    if (p === undefined || !types.includes(p.type)) {
      report({ file: store.file, pointer: '/properties', message: `The number-series store ${name} needs a property "${prop}" of type ${types.join(' or ')}.`, fix: `add it, or name another type in service.json "numberSeriesEntityType".` });
    }
  }
  if (store.doc.scope !== 'company') {
    report({ file: store.file, pointer: '/scope', message: `The number-series store ${name} must be company-scoped (each company numbers its own records).`, fix: 'set "scope" to "company".' });
  }
}

/** The key: one declared, stored, non-nullable property of type Edm.Guid or Edm.String. */
function checkKey(document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  const key = propertyOf(doc, doc.key);
  if (key === undefined) {
    report({
      file,
      pointer: '/key',
      message: `The key "${doc.key}" is not a property of ${doc.name}.`,
      fix: `${chooseFrom(doc.key, propertyNames(doc))}.`,
    });
    return;
  }
  const keyPointer = jsonPointer('properties', doc.properties.indexOf(key));
  if (!KEY_TYPES.includes(key.type)) {
    report({
      file,
      pointer: `${keyPointer}/type`,
      message: `The key property "${key.name}" has type ${key.type}.`,
      fix: 'use Edm.Guid (recommended by Business Central) or Edm.String for the key.',
    });
  }
  if (key.nullable !== false) {
    report({ file, pointer: keyPointer, message: `The key property "${key.name}" is nullable.`, fix: 'add "nullable": false.' });
  }
  if (!isStored(key)) {
    report({ file, pointer: keyPointer, message: `The key property "${key.name}" is computed or media.`, fix: 'use a stored property as the key.' });
  }
}

/** Properties and navigation properties share one name space per type (CSDL §6.1, §7.1). */
function checkMemberNames(document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  const seen = new Set<string>();
  const members: [string, string, number][] = [
    ...doc.properties.map((property, position): [string, string, number] => [property.name, 'properties', position]),
    ...(doc.navigationProperties ?? []).map((navigation, position): [string, string, number] => [navigation.name, 'navigationProperties', position]),
  ];
  for (const [name, list, position] of members) {
    if (seen.has(name)) {
      report({
        file,
        pointer: jsonPointer(list, position, 'name'),
        message: `The member name "${name}" is already used in ${doc.name}.`,
        fix: 'rename or remove one of the two members.',
      });
    }
    seen.add(name);
  }
}

/** Default order: declared, non-stream properties. Indexes: stored properties. Actions: unique, with a declared return type. */
function checkOrderAndActions(index: MetadataIndex, document: MetadataDocument<EntityFile>, report: Report): void {
  const { file, doc } = document;
  (doc.defaultOrderBy ?? []).forEach((name, position) => {
    const property = propertyOf(doc, name);
    if (property === undefined || property.type === 'Edm.Stream') {
      report({
        file,
        pointer: jsonPointer('defaultOrderBy', position),
        message: `"${name}" is not a sortable property of ${doc.name}.`,
        fix: `${chooseFrom(name, propertyNames(doc, (p) => p.type !== 'Edm.Stream'))}.`,
      });
    }
  });
  (doc.indexes ?? []).forEach((names, position) => {
    names.forEach((name, at) => {
      const property = propertyOf(doc, name);
      if (property === undefined || property.type === 'Edm.Stream' || property.computed !== undefined) {
        report({
          file,
          pointer: jsonPointer('indexes', position, at),
          message: `"${name}" is not a stored property of ${doc.name}, so no index can hold it.`,
          fix: `${chooseFrom(name, propertyNames(doc, (p) => p.type !== 'Edm.Stream' && p.computed === undefined))}.`,
        });
      }
    });
  });
  const actionNames = new Set<string>();
  (doc.actions ?? []).forEach((action, position) => {
    if (actionNames.has(action.name)) {
      report({
        file,
        pointer: jsonPointer('actions', position, 'name'),
        message: `The action "${action.name}" is declared twice on ${doc.name}.`,
        fix: 'remove one of them.',
      });
    }
    actionNames.add(action.name);
    if (index.entityByName.has(action.name) || index.enumByName.has(action.name)) {
      report({
        file,
        pointer: jsonPointer('actions', position, 'name'),
        message: `The action name "${action.name}" is also a type name (they share the schema namespace).`,
        fix: 'rename the action.',
      });
    }
    if (action.returnType !== undefined && !index.entityByName.has(action.returnType)) {
      report({
        file,
        pointer: jsonPointer('actions', position, 'returnType'),
        message: `No entity type "${action.returnType}" is declared.`,
        fix: `${chooseFrom(action.returnType, [...index.entityByName.keys()])}.`,
      });
    }
  });
}

/** Entity sets: unique names, a valid scope, and no clash with the company type's members. */
function checkEntitySets(index: MetadataIndex, report: Report): void {
  const setOwner = new Map<string, string>();
  const company = index.entityByName.get(index.files.service.doc.companyEntityType)?.doc;
  const companyMembers = company ? [...propertyNames(company), ...navigationNames(company)] : [];
  for (const { file, doc } of index.files.entities) {
    const owner = setOwner.get(doc.entitySet);
    if (owner !== undefined) {
      report({
        file,
        pointer: '/entitySet',
        message: `The entity set "${doc.entitySet}" is already the set of ${owner}.`,
        fix: 'choose another entity set name.',
      });
    }
    setOwner.set(doc.entitySet, doc.name);
    // The company type gets one containment navigation per company-scoped set, named after the set.
    if (doc.scope === 'company' && companyMembers.includes(doc.entitySet)) {
      report({
        file,
        pointer: '/entitySet',
        message: `The set name "${doc.entitySet}" clashes with a member of the company type.`,
        fix: 'rename the set or that member.',
      });
    }
  }
}

/** Runs the declaration checks of the whole model. */
export function checkDeclarations(index: MetadataIndex, report: Report): void {
  for (const document of [...index.files.enums, ...index.files.entities]) checkFileName(document, report);
  checkTypeNames(index, report);
  checkEnumMembers(index, report);
  checkService(index, report);
  checkEntitySets(index, report);
  for (const document of index.files.entities) {
    checkKey(document, report);
    checkMemberNames(document, report);
    checkOrderAndActions(index, document, report);
  }
}
