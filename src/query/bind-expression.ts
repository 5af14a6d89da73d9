/**
 * Binds a parsed expression to the model (URL Conventions §5.1.1): resolves member paths (properties,
 * single-valued navigations, lambdas over collection navigations, `/$count`), types literals and
 * coerces them to the other operand (GUIDs, enum members, dates), and checks operator and function
 * types. Pure; unknown names are 400 BadRequest_NotFound, type errors 400 BadRequest_InvalidRequestUrl.
 */
import type { EdmModel, EntityType, NavigationProperty } from '../edm/model.js';
import { impossibleDate, isCalendarDate, literalToStored, normaliseDateTimeOffset } from '../edm/values.js';
import { NotImplementedError, UriSemanticError } from '../errors/odata-error.js';
import type { Expr, Literal, MemberSegment } from '../uri/ast.js';
import { assertNever } from '../util/assert-never.js';
import { BOOLEAN, type BoundExpr, type ExprType, type PathRoot, type ResultShape } from './bound-ast.js';
import { comparable, isBoolean, isNumeric, prim, promote, typeName } from './expr-types.js';
import { bindCall } from './bind-functions.js';

/** The names an expression may use: `$it` and lambda variables, plus parameter aliases. */
export interface BindScope {
  readonly model: EdmModel;
  readonly it: PathRoot;
  readonly variables: ReadonlyMap<string, PathRoot>;
  readonly aliases: ReadonlyMap<string, Expr>;
  /** The query option being bound, for error targets ('$filter', '$orderby'). */
  readonly option: string;
  /** Alias expansion depth (guards alias cycles). */
  readonly aliasDepth: number;
}

function typeError(scope: BindScope, message: string): UriSemanticError {
  return new UriSemanticError(message, scope.option, 'BadRequest_InvalidRequestUrl');
}

/** Binds a literal to its natural type. */
export function bindLiteral(lit: Literal, scope: BindScope): BoundExpr {
  switch (lit.kind) {
    case 'null':
      return { kind: 'literal', type: { kind: 'null' }, value: null };
    case 'boolean':
      return { kind: 'literal', type: BOOLEAN, value: lit.value ? 1 : 0 };
    case 'integer': {
      const n = Number(lit.value);
      if (!Number.isSafeInteger(n)) throw typeError(scope, `The integer ${lit.value} is out of range.`);
      return { kind: 'literal', type: prim(Math.abs(n) <= 2147483647 ? 'Edm.Int32' : 'Edm.Int64'), value: n };
    }
    case 'decimal':
      return { kind: 'literal', type: prim('Edm.Decimal'), value: Number(lit.value) };
    case 'double': {
      const n = Number(lit.value);
      if (!Number.isFinite(n)) throw new NotImplementedError(`The literal ${lit.value} (INF/NaN) is not supported in filters.`);
      return { kind: 'literal', type: prim('Edm.Double'), value: n };
    }
    case 'string':
      return { kind: 'literal', type: prim('Edm.String'), value: lit.value };
    case 'guid':
      return { kind: 'literal', type: prim('Edm.Guid'), value: lit.value.toLowerCase() };
    case 'date':
      if (!isCalendarDate(lit.value)) throw typeError(scope, impossibleDate(lit.value));
      return { kind: 'literal', type: prim('Edm.Date'), value: lit.value };
    case 'dateTimeOffset':
      if (!isCalendarDate(lit.value)) throw typeError(scope, impossibleDate(lit.value));
      return { kind: 'literal', type: prim('Edm.DateTimeOffset'), value: normaliseDateTimeOffset(lit.value) };
    case 'timeOfDay':
      return { kind: 'literal', type: prim('Edm.TimeOfDay'), value: lit.value };
    case 'enum': {
      const enumType = scope.model.enumTypes.find((e) => e.qualifiedName === lit.typeName);
      if (enumType === undefined) throw new UriSemanticError(`Could not find an enumeration type named '${lit.typeName}'.`, scope.option);
      const [member, ...more] = lit.members;
      if (member === undefined || more.length > 0 || !enumType.memberByEncoded.has(member)) {
        throw typeError(scope, `'${lit.members.join(',')}' is not a member of '${enumType.qualifiedName}'. Members: ${enumType.members.map((m) => m.encoded).join(', ')}.`);
      }
      return { kind: 'literal', type: { kind: 'enum', enumType }, value: member };
    }
    case 'duration':
    case 'binary':
    case 'geo':
      throw new NotImplementedError(`${lit.kind} literals are not supported: no property of this service has that type.`);
    default:
      return assertNever(lit, 'literal');
  }
}

/**
 * Coerces a literal to the type of the operand it meets: a string to a GUID or enum member, an
 * integer to a decimal. Other expressions are returned unchanged.
 */
export function coerceTo(e: BoundExpr, target: ExprType, scope: BindScope): BoundExpr {
  if (e.kind !== 'literal' || e.type.kind === 'null' || target.kind === 'null') return e;
  if (target.kind === 'enum' && e.type.kind === 'primitive' && e.type.name === 'Edm.String') {
    const name = String(e.value);
    if (!target.enumType.memberByEncoded.has(name)) {
      throw typeError(scope, `'${name}' is not a member of '${target.enumType.qualifiedName}'. Members: ${target.enumType.members.map((m) => m.encoded).join(', ')}.`);
    }
    return { ...e, type: target };
  }
  if (target.kind === 'primitive' && target.name === 'Edm.Guid' && e.type.kind === 'primitive' && e.type.name === 'Edm.String') {
    const fake = { name: 'value', type: target } as unknown as Parameters<typeof literalToStored>[1];
    const r = literalToStored({ kind: 'string', value: String(e.value) }, fake);
    if (!r.ok) throw typeError(scope, `'${String(e.value)}' is not a GUID.`);
    return { kind: 'literal', type: target, value: r.value };
  }
  return e;
}

function resolveRoot(expr: Extract<Expr, { kind: 'member' }>, scope: BindScope): PathRoot {
  const root = expr.root;
  switch (root.kind) {
    case 'it':
    case 'this':
      return scope.it;
    case 'variable': {
      const v = scope.variables.get(root.name);
      if (v === undefined) throw new UriSemanticError(`The lambda variable '${root.name}' is not defined here.`, scope.option);
      return v;
    }
    case 'root':
    case 'alias':
      throw new NotImplementedError(`Paths starting with ${root.kind === 'root' ? '$root' : '@' + root.name} are not supported.`);
    default:
      return assertNever(root, 'member root');
  }
}

function notFound(name: string, type: EntityType, scope: BindScope): UriSemanticError {
  return new UriSemanticError(`Could not find a property named '${name}' on type '${type.qualifiedName}'.`, scope.option);
}

/** Walks a member path: single-valued navigations, then a property, a collection + `$count`, or a collection (for lambdas). */
function walkPath(
  segments: readonly MemberSegment[],
  root: PathRoot,
  scope: BindScope,
): { navigations: NavigationProperty[]; end: { kind: 'property'; expr: BoundExpr } | { kind: 'collection'; nav: NavigationProperty; count?: Extract<MemberSegment, { kind: 'count' }> } } {
  let type = root.type;
  const navigations: NavigationProperty[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as MemberSegment;
    const last = i === segments.length - 1;
    if (seg.kind !== 'name') {
      throw new NotImplementedError(`The path segment ${seg.kind === 'cast' ? `'${seg.typeName}' (type cast)` : `'${seg.kind}'`} is not supported in ${scope.option}.`);
    }
    const prop = type.propertyByName.get(seg.name);
    if (prop !== undefined) {
      if (!last) throw typeError(scope, `'${seg.name}' is a property of '${type.qualifiedName}'; nothing can follow it in a path.`);
      if (prop.storage.kind === 'media') throw typeError(scope, `The media property '${seg.name}' cannot be used in ${scope.option}.`);
      return { navigations, end: { kind: 'property', expr: { kind: 'property', root, navigations, property: prop, type: prop.type } } };
    }
    const nav = type.navigationByName.get(seg.name);
    if (nav === undefined || !nav.exposed) throw notFound(seg.name, type, scope);
    if (nav.collection) {
      const next = segments[i + 1];
      if (last) return { navigations, end: { kind: 'collection', nav } };
      if (next?.kind === 'count' && i + 1 === segments.length - 1) return { navigations, end: { kind: 'collection', nav, count: next } };
      throw typeError(scope, `'${seg.name}' is a collection; use ${seg.name}/any(...), ${seg.name}/all(...) or ${seg.name}/$count.`);
    }
    navigations.push(nav);
    type = nav.target;
  }
  throw typeError(scope, `The path ends at the navigation '${segments[segments.length - 1]?.kind === 'name' ? (segments[segments.length - 1] as { name: string }).name : ''}'; name a property of it.`);
}

/** Binds an expression. */
export function bindExpression(expr: Expr, scope: BindScope): BoundExpr {
  switch (expr.kind) {
    case 'literal':
      return bindLiteral(expr.literal, scope);
    case 'member': {
      const root = resolveRoot(expr, scope);
      if (root.result !== undefined) return bindResultPath(expr.segments, root.result, scope);
      const { navigations, end } = walkPath(expr.segments, root, scope);
      if (end.kind === 'property') return end.expr;
      if (end.count !== undefined) {
        const filter = end.count.filter === undefined ? undefined : bindPredicateOver(end.nav, end.count.filter, scope);
        return { kind: 'count', root, navigations, collection: end.nav, filter, type: prim('Edm.Int64') };
      }
      throw typeError(scope, `'${end.nav.name}' is a collection; use ${end.nav.name}/any(...), ${end.nav.name}/all(...) or ${end.nav.name}/$count.`);
    }
    case 'binary':
      return bindBinary(expr, scope);
    case 'not': {
      const operand = bindExpression(expr.operand, scope);
      if (!isBoolean(operand.type)) throw typeError(scope, `'not' needs a Boolean operand, not ${typeName(operand.type)}.`);
      return { kind: 'not', operand, type: BOOLEAN };
    }
    case 'negate': {
      const operand = bindExpression(expr.operand, scope);
      if (!isNumeric(operand.type)) throw typeError(scope, `'-' needs a number, not ${typeName(operand.type)}.`);
      return { kind: 'negate', operand, type: operand.type };
    }
    case 'call':
      return bindCall(expr, scope, bindExpression);
    case 'lambda': {
      const root = resolveRoot(expr.collection, scope);
      if (root.result !== undefined) throw typeError(scope, `${expr.operator}() needs a collection of entities; aggregated instances have none.`);
      const { navigations, end } = walkPath(expr.collection.segments, root, scope);
      if (end.kind !== 'collection' || end.count !== undefined) throw typeError(scope, `${expr.operator}() needs a collection-valued navigation path.`);
      const variable: PathRoot = { variable: expr.variable ?? '$this', type: end.nav.target };
      let predicate: BoundExpr | undefined;
      if (expr.predicate !== undefined) {
        if (expr.variable !== undefined && (scope.variables.has(expr.variable) || expr.variable === '$it')) {
          throw typeError(scope, `The lambda variable '${expr.variable}' is already in use.`);
        }
        const variables = new Map(scope.variables);
        variables.set(variable.variable, variable);
        predicate = bindExpression(expr.predicate, { ...scope, variables });
        if (!isBoolean(predicate.type)) throw typeError(scope, `The ${expr.operator}() predicate must be Boolean, not ${typeName(predicate.type)}.`);
      } else if (expr.operator === 'all') {
        throw typeError(scope, 'all() needs a predicate, e.g. lines/all(l: l/quantityPer gt 0).');
      }
      return { kind: 'lambda', operator: expr.operator, root, navigations, collection: end.nav, variable, predicate, type: BOOLEAN };
    }
    case 'list':
      throw typeError(scope, 'A parenthesised list is only allowed after in.');
    case 'alias': {
      const value = scope.aliases.get(expr.name);
      if (value === undefined) throw typeError(scope, `The parameter alias @${expr.name} has no value in the query.`);
      if (scope.aliasDepth > 8) throw typeError(scope, `The parameter alias @${expr.name} refers to itself.`);
      return bindExpression(value, { ...scope, aliasDepth: scope.aliasDepth + 1 });
    }
    case 'json':
      throw new NotImplementedError('JSON literals are not supported in this service’s expressions.');
    default:
      return assertNever(expr, 'expression');
  }
}

/**
 * A path over aggregated instances names one of their properties as written in `$apply`: a grouping
 * path (`engChangeNotice/status`) or an alias (Data Aggregation §3.1, §3.10).
 */
function bindResultPath(segments: readonly MemberSegment[], shape: ResultShape, scope: BindScope): BoundExpr {
  const names = segments.map((s) => (s.kind === 'name' ? s.name : undefined));
  const column = names.includes(undefined) ? undefined : shape.get(names.join('/'));
  if (column === undefined) {
    const written = segments.map((s) => (s.kind === 'name' ? s.name : s.kind === 'cast' ? s.typeName : `$${s.kind}`)).join('/');
    throw new UriSemanticError(`Could not find a property named '${written}' in the aggregated result; its properties are ${[...shape.keys()].join(', ')}.`, scope.option);
  }
  return { kind: 'result', name: column.name, column: column.column, type: column.type };
}

function bindPredicateOver(nav: NavigationProperty, filter: Expr, scope: BindScope): BoundExpr {
  const it: PathRoot = { variable: '$this', type: nav.target };
  const p = bindExpression(filter, { ...scope, it });
  if (!isBoolean(p.type)) throw typeError(scope, '$count($filter=...) needs a Boolean condition.');
  return p;
}

function bindBinary(expr: Extract<Expr, { kind: 'binary' }>, scope: BindScope): BoundExpr {
  const op = expr.operator;
  if (op === 'in') {
    const operand = bindExpression(expr.left, scope);
    const itemsExpr = expr.right.kind === 'list' ? expr.right.items : undefined;
    if (itemsExpr === undefined) throw new NotImplementedError('in with a collection-valued right operand is not supported; write x in (a,b,c).');
    const items = itemsExpr.map((i) => coerceTo(bindExpression(i, scope), operand.type, scope));
    for (const item of items) {
      if (!comparable(operand.type, item.type)) throw typeError(scope, `Cannot compare ${typeName(operand.type)} with ${typeName(item.type)} in 'in'.`);
    }
    return { kind: 'in', operand, items, type: BOOLEAN };
  }
  let left = bindExpression(expr.left, scope);
  let right = bindExpression(expr.right, scope);
  switch (op) {
    case 'and':
    case 'or':
      if (!isBoolean(left.type) || !isBoolean(right.type)) throw typeError(scope, `'${op}' needs Boolean operands, not ${typeName(left.type)} and ${typeName(right.type)}.`);
      return { kind: 'logical', operator: op, left, right, type: BOOLEAN };
    case 'eq':
    case 'ne':
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      left = coerceTo(left, right.type, scope);
      right = coerceTo(right, left.type, scope);
      if (!comparable(left.type, right.type)) throw typeError(scope, `Cannot compare ${typeName(left.type)} with ${typeName(right.type)}.`);
      if ((op !== 'eq' && op !== 'ne') && (isBoolean(left.type) && left.type.kind !== 'null')) throw typeError(scope, `'${op}' cannot compare Boolean values.`);
      return { kind: 'compare', operator: op, left, right, type: BOOLEAN };
    case 'has': {
      if (left.type.kind !== 'enum') throw typeError(scope, `'has' needs an enumeration on the left, not ${typeName(left.type)}.`);
      right = coerceTo(right, left.type, scope);
      if (right.kind !== 'literal' || right.type.kind !== 'enum' || right.type.enumType !== left.type.enumType) {
        throw typeError(scope, `'has' needs a member of ${left.type.enumType.qualifiedName} on the right.`);
      }
      return { kind: 'has', operand: left, member: String(right.value), enumType: left.type.enumType, type: BOOLEAN };
    }
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'divby':
    case 'mod': {
      if (!isNumeric(left.type) && left.type.kind !== 'null') throw typeError(scope, `'${op}' needs numbers, not ${typeName(left.type)}.`);
      if (!isNumeric(right.type) && right.type.kind !== 'null') throw typeError(scope, `'${op}' needs numbers, not ${typeName(right.type)}.`);
      const type = op === 'divby' ? prim('Edm.Decimal') : promote(left.type, right.type);
      return { kind: 'arithmetic', operator: op, left, right, type };
    }
    default:
      return assertNever(op, 'binary operator');
  }
}
