/**
 * Type helpers for bound expressions: numeric promotion, comparability, readable type names.
 */
import type { PrimitiveTypeName } from '../edm/model.js';
import type { ExprType } from './bound-ast.js';

const NUMERIC_RANK: Partial<Record<PrimitiveTypeName, number>> = { 'Edm.Int32': 1, 'Edm.Int64': 2, 'Edm.Decimal': 3, 'Edm.Double': 4 };

/** A primitive type. */
export const prim = (name: PrimitiveTypeName): ExprType => ({ kind: 'primitive', name });

/** The type's display name for messages. */
export function typeName(t: ExprType): string {
  if (t.kind === 'null') return 'null';
  return t.kind === 'enum' ? t.enumType.qualifiedName : t.name;
}

/** true for Int32, Int64, Decimal, Double. */
export function isNumeric(t: ExprType): boolean {
  return t.kind === 'primitive' && NUMERIC_RANK[t.name] !== undefined;
}

/** true for Edm.String. */
export function isString(t: ExprType): boolean {
  return t.kind === 'primitive' && t.name === 'Edm.String';
}

/** true for Edm.Boolean (or the null literal). */
export function isBoolean(t: ExprType): boolean {
  return t.kind === 'null' || (t.kind === 'primitive' && t.name === 'Edm.Boolean');
}

/** The wider of two numeric types (OData numeric promotion, URL Conventions §5.1.1.2). */
export function promote(a: ExprType, b: ExprType): ExprType {
  if (a.kind !== 'primitive' || b.kind !== 'primitive') return a.kind === 'null' ? b : a;
  return (NUMERIC_RANK[a.name] ?? 0) >= (NUMERIC_RANK[b.name] ?? 0) ? a : b;
}

/** true when values of the two types can be compared with eq/ne/gt/... */
export function comparable(a: ExprType, b: ExprType): boolean {
  if (a.kind === 'null' || b.kind === 'null') return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (a.kind === 'enum' || b.kind === 'enum') return a.kind === 'enum' && b.kind === 'enum' && a.enumType === b.enumType;
  return a.name === b.name;
}
