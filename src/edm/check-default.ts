/**
 * Checks that a property's default fits its type: each DefaultValue kind of model.ts is only
 * meaningful for some types, and a literal default must be a valid value of the property
 * (an enum default names a business member name, as written in the enum file).
 */
import type { DefaultValue } from './model.js';
import type { EntityFile, PropertyFile } from './metadata-format.js';
import { isStored, propertyNames, propertyOf, type MetadataIndex, type Report } from './metadata-index.js';
import { chooseFrom } from './suggest-name.js';

/** The types each computed default kind may fill. */
const TYPES_OF_KIND: Readonly<Record<Exclude<DefaultValue['kind'], 'value'>, readonly string[]>> = {
  guid: ['Edm.Guid'],
  now: ['Edm.DateTimeOffset'],
  today: ['Edm.Date'],
  currentUser: ['Edm.String'],
  numberSeries: ['Edm.String'],
  nextLineNo: ['Edm.Int32', 'Edm.Int64'],
};

const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME_OFFSET = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,12})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,12})?)?$/;

/** Why `value` is not a valid literal of a primitive property, or undefined when it is. */
function primitiveValueProblem(value: string | number | boolean, property: PropertyFile): string | undefined {
  const isInteger = (low: number, high: number): boolean => typeof value === 'number' && Number.isInteger(value) && value >= low && value <= high;
  switch (property.type) {
    case 'Edm.String':
      if (typeof value !== 'string') return 'must be a string';
      return property.maxLength !== undefined && value.length > property.maxLength ? `is longer than maxLength ${property.maxLength}` : undefined;
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'Edm.Int32':
      return isInteger(-2147483648, 2147483647) ? undefined : 'must be a 32-bit integer';
    case 'Edm.Int64':
      return isInteger(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) ? undefined : 'must be an integer';
    case 'Edm.Double':
      return typeof value === 'number' ? undefined : 'must be a number';
    case 'Edm.Decimal': {
      if (typeof value !== 'number') return 'must be a number';
      const decimals = (String(value).split('.')[1] ?? '').length;
      return property.scale !== undefined && decimals > property.scale ? `has more than ${property.scale} decimals (the scale)` : undefined;
    }
    case 'Edm.Guid':
      return typeof value === 'string' && GUID.test(value) ? undefined : 'must be a GUID such as "00000000-0000-0000-0000-000000000000"';
    case 'Edm.Date':
      return typeof value === 'string' && DATE.test(value) ? undefined : 'must be a date such as "2024-01-31"';
    case 'Edm.DateTimeOffset':
      return typeof value === 'string' && DATE_TIME_OFFSET.test(value) ? undefined : 'must be a timestamp such as "2024-01-31T12:00:00Z"';
    case 'Edm.TimeOfDay':
      return typeof value === 'string' && TIME_OF_DAY.test(value) ? undefined : 'must be a time such as "08:30:00"';
    default:
      return `cannot be a literal of type ${property.type}`;
  }
}

/** Checks the `default` of `property` (at `pointer`, e.g. `/properties/3`) of `entity`. */
export function checkDefault(index: MetadataIndex, file: string, entity: EntityFile, property: PropertyFile, pointer: string, report: Report): void {
  const fallback = property.default;
  if (fallback === undefined) return;
  const at = `${pointer}/default`;
  if (fallback.kind === 'value') {
    const enumType = index.enumByName.get(property.type);
    if (enumType !== undefined) {
      if (typeof fallback.value !== 'string' || !enumType.doc.members.includes(fallback.value)) {
        const members = enumType.doc.members.map((member) => JSON.stringify(member));
        report({
          file,
          pointer: `${at}/value`,
          message: `${JSON.stringify(fallback.value)} is not a member of ${property.type}.`,
          fix: `use the business name of a member: ${members.join(', ')}.`,
        });
      }
      return;
    }
    if (!property.type.startsWith('Edm.')) return; // an unknown type is reported by check-properties.ts
    const problem = primitiveValueProblem(fallback.value, property);
    if (problem !== undefined) {
      report({
        file,
        pointer: `${at}/value`,
        message: `The default ${JSON.stringify(fallback.value)} ${problem}.`,
        fix: `write a valid ${property.type} value.`,
      });
    }
    return;
  }
  const types = TYPES_OF_KIND[fallback.kind];
  if (!types.includes(property.type)) {
    report({
      file,
      pointer: `${at}/kind`,
      message: `A default of kind "${fallback.kind}" cannot fill a property of type ${property.type}.`,
      fix: `use it on ${types.join(' or ')} properties, or choose another kind (value, guid, now, today, currentUser, numberSeries, nextLineNo).`,
    });
  }
  if (fallback.kind === 'numberSeries') {
    const series = index.files.service.doc.numberSeries.find((candidate) => candidate.code === fallback.series);
    if (series === undefined) {
      report({
        file,
        pointer: `${at}/series`,
        message: `No number series "${fallback.series}" is declared in service.json.`,
        fix: `${chooseFrom(fallback.series, [...index.seriesCodes])}, or add it to "numberSeries" in service.json.`,
      });
    } else if (property.maxLength !== undefined && series.prefix.length + series.width > property.maxLength) {
      report({
        file,
        pointer: `${at}/series`,
        message: `Numbers of series "${series.code}" have ${series.prefix.length + series.width} characters, more than maxLength ${property.maxLength}.`,
        fix: 'raise maxLength or shorten the prefix or width of the series.',
      });
    }
  }
  if (fallback.kind === 'nextLineNo') {
    const group = propertyOf(entity, fallback.groupBy);
    if (group === undefined || !isStored(group) || group === property) {
      report({
        file,
        pointer: `${at}/groupBy`,
        message: `"${fallback.groupBy}" is not another stored property of ${entity.name}.`,
        fix: `${chooseFrom(fallback.groupBy, propertyNames(entity, (candidate) => isStored(candidate) && candidate !== property))}.`,
      });
    }
  }
}
