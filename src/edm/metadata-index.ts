/**
 * Name lookups over the raw metadata documents, shared by the cross-file checks (check-*.ts).
 * When a name is declared twice the first declaration wins here; check-declarations.ts reports the second.
 */
import type { EntityFile, EnumFile, MetadataDocument, MetadataFiles, NavigationFile, PropertyFile } from './metadata-format.js';
import { PRIMITIVE_TYPE_NAMES } from './model.js';
import type { ModelProblem } from './model-error.js';

/** The documents of a model with their names resolved. */
export interface MetadataIndex {
  readonly files: MetadataFiles;
  readonly enumByName: ReadonlyMap<string, MetadataDocument<EnumFile>>;
  readonly entityByName: ReadonlyMap<string, MetadataDocument<EntityFile>>;
  /** Codes of the number series of service.json. */
  readonly seriesCodes: ReadonlySet<string>;
}

/** Records one problem (the checks push into one shared list so that all problems are reported at once). */
export type Report = (problem: ModelProblem) => void;

/** Builds the lookups of `files`. */
export function indexMetadata(files: MetadataFiles): MetadataIndex {
  const enumByName = new Map<string, MetadataDocument<EnumFile>>();
  for (const document of files.enums) if (!enumByName.has(document.doc.name)) enumByName.set(document.doc.name, document);
  const entityByName = new Map<string, MetadataDocument<EntityFile>>();
  for (const document of files.entities) if (!entityByName.has(document.doc.name)) entityByName.set(document.doc.name, document);
  const seriesCodes = new Set(files.service.doc.numberSeries.map((series) => series.code));
  return { files, enumByName, entityByName, seriesCodes };
}

/** true when `type` is a supported primitive or a declared enum; checks that compare types skip unknown ones (check-properties reports them once). */
export function isKnownType(index: MetadataIndex, type: string): boolean {
  return (PRIMITIVE_TYPE_NAMES as readonly string[]).includes(type) || index.enumByName.has(type);
}

/** The property `name` of `entity`, if declared. */
export function propertyOf(entity: EntityFile, name: string): PropertyFile | undefined {
  return entity.properties.find((property) => property.name === name);
}

/** The navigation property `name` of `entity`, if declared. */
export function navigationOf(entity: EntityFile, name: string): NavigationFile | undefined {
  return (entity.navigationProperties ?? []).find((navigation) => navigation.name === name);
}

/** Names of the properties of `entity`, optionally only those passing `filter` (for "use one of" fixes). */
export function propertyNames(entity: EntityFile, filter: (property: PropertyFile) => boolean = () => true): string[] {
  return entity.properties.filter(filter).map((property) => property.name);
}

/** Names of the navigation properties of `entity` passing `filter`. */
export function navigationNames(entity: EntityFile, filter: (navigation: NavigationFile) => boolean = () => true): string[] {
  return (entity.navigationProperties ?? []).filter(filter).map((navigation) => navigation.name);
}

/** true for a property kept in a column (neither computed nor media): joins and groupings need one. */
export function isStored(property: PropertyFile): boolean {
  return property.computed === undefined && property.type !== 'Edm.Stream';
}

/** true when the navigation is referential: single-valued, one join, and that join targets the target's key. */
export function isReferential(navigation: NavigationFile, target: EntityFile | undefined): boolean {
  const join = navigation.joins[0];
  return !navigation.collection && navigation.joins.length === 1 && join !== undefined && target !== undefined && join.target === target.key;
}
