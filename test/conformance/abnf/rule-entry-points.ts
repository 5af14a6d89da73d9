/**
 * Maps each ABNF start rule of the OASIS corpus (case-insensitively) to the parser entry point that
 * implements it. An entry point returns what it parsed, or throws (UriSyntaxError, QueryLimitError,
 * or ConstraintViolation) to reject the input. Rules the service never parses are listed in
 * OUT_OF_SCOPE with the reason.
 */
import type { Expr, QueryOptions, ResourcePath } from '../../../src/uri/ast.js';
import { Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { percentDecode } from '../../../src/uri/percent-decode.js';
import { isLiteralRule, parseLiteralAs } from '../../../src/uri/literal-rules.js';
import { parseExpression } from '../../../src/uri/parse-expression.js';
import { scanJsonString } from '../../../src/uri/parse-json.js';
import { parseQueryOption, parseQueryOptions } from '../../../src/uri/parse-options.js';
import { parseResourcePath } from '../../../src/uri/parse-path.js';
import { parseODataUri, parseRelativeUri } from '../../../src/uri/parse-odata-uri.js';
import { parseSearch } from '../../../src/uri/parse-search.js';
import { parsePreference, parsePrefer } from '../../../src/uri/parse-prefer.js';

/** A rejection that comes from the corpus model constraints, not from the parser. */
export class ConstraintViolation extends Error {
  constructor(
    message: string,
    readonly position = 0,
  ) {
    super(message);
  }
}

/** What an entry point parsed, for the constraint checks. */
export interface Parsed {
  readonly path?: ResourcePath;
  readonly query?: QueryOptions;
  readonly expr?: Expr;
}

type EntryPoint = (input: string) => Parsed;

/** Rules the service does not parse, with the reason. */
export const OUT_OF_SCOPE: Readonly<Record<string, string>> = {
  context: 'context URL fragments (#Customers(...)) are written by the server in responses, never parsed',
  header: 'HTTP headers other than Prefer are read by the HTTP layer, not by the URL parser',
  'request-id': 'batch request ids belong to a $batch parser, which the service does not have',
};

const decode = (input: string): string => percentDecode(input, 'input');

function expression(rule: string, kinds?: readonly Expr['kind'][]): EntryPoint {
  return (input) => {
    const expr = parseExpression(decode(input), rule);
    if (kinds !== undefined && !kinds.includes(expr.kind)) throw new ConstraintViolation(`parsed as ${expr.kind}, not ${rule}`);
    return { expr };
  };
}

/** A single `name=value` option whose result must contain `field`. */
function option(field?: keyof QueryOptions): EntryPoint {
  return (input) => {
    const query = parseQueryOption(input);
    const present = field === undefined ? Object.keys(query).some((k) => k !== 'aliases' && k !== 'custom') : query[field] !== undefined;
    if (!present) throw new ConstraintViolation(`not a ${field ?? 'system'} option`);
    return { query };
  };
}

function wholeIdentifier(input: string): Parsed {
  const lx = new Lexer(input, 'identifier', new ParseBudget(DEFAULT_PARSE_LIMITS));
  lx.expectIdentifier();
  if (!lx.atEnd) throw lx.expected('the end of the identifier');
  return {};
}

const ENTRY_POINTS: Readonly<Record<string, EntryPoint>> = {
  odatauri: (input) => parseODataUri(input),
  odatarelativeuri: (input) => parseRelativeUri(input),
  resourcepath: (input) => ({ path: parseResourcePath(input) }),
  queryoptions: (input) => ({ query: parseQueryOptions(input) }),
  filter: option('filter'),
  orderby: option('orderby'),
  select: option('select'),
  expand: option('expand'),
  compute: option('compute'),
  search: option('search'),
  skiptoken: option('skiptoken'),
  deltatoken: option('deltatoken'),
  systemqueryoption: option(),
  customqueryoption: (input) => {
    const query = parseQueryOption(input);
    if (query.custom.size !== 1) throw new ConstraintViolation('not a custom query option');
    return { query };
  },
  commonexpr: expression('commonExpr'),
  boolcommonexpr: expression('boolCommonExpr'),
  firstmemberexpr: expression('firstMemberExpr', ['member']),
  propertypathexpr: expression('propertyPathExpr', ['member']),
  notexpr: expression('notExpr', ['not']),
  isofexpr: (input) => {
    const expr = parseExpression(decode(input), 'isofExpr');
    if (expr.kind !== 'call' || expr.name !== 'isof') throw new ConstraintViolation('not an isof() call');
    return { expr };
  },
  // anyExpr only occurs after a collection path; give it one and check the lambda.
  anyexpr: (input) => {
    const expr = parseExpression(`c/${decode(input)}`, 'anyExpr');
    if (expr.kind !== 'lambda' || expr.operator !== 'any') throw new ConstraintViolation('not an any() lambda');
    return { expr };
  },
  searchexpr: (input) => (parseSearch(decode(input), 'searchExpr'), {}),
  stringinurl: (input) => {
    const lx = new Lexer(decode(input), 'stringInUrl', new ParseBudget(DEFAULT_PARSE_LIMITS));
    if (scanJsonString(lx, 0) !== lx.end) throw lx.error('not a complete JSON string', 0);
    return {};
  },
  entitysetname: wholeIdentifier,
  odataidentifier: wholeIdentifier,
  functionparameter: (input) => {
    const path = parseResourcePath(`F(${input})`);
    const first = path.segments[0];
    if (first?.kind !== 'identifier' || first.key?.kind !== 'named' || first.key.pairs.length !== 1) {
      throw new ConstraintViolation('not one name=value parameter');
    }
    return { path };
  },
  keypredicate: (input) => ({ path: parseResourcePath(`E${input}`) }),
  preference: (input) => (parsePreference(input), {}),
  includeannotationspreference: (input) => (parsePreference(input), {}),
  maxpagesizepreference: (input) => (parsePreference(input), {}),
  prefer: (input) => {
    const header = /^prefer:[ \t]*/i.exec(input);
    if (header === null) throw new ConstraintViolation('not a Prefer header');
    const { invalid } = parsePrefer(input.slice(header[0].length));
    const bad = invalid[0];
    if (bad !== undefined) throw new ConstraintViolation(bad.message, header[0].length + bad.position);
    return {};
  },
};

/** The entry point for a rule, or undefined if the rule is out of scope or unknown. */
export function entryPointFor(rule: string): EntryPoint | undefined {
  const r = rule.toLowerCase();
  const entry = ENTRY_POINTS[r];
  if (entry !== undefined) return entry;
  if (!isLiteralRule(r)) return undefined;
  // Payload forms (`...Value`) allow no percent-encoding; URL forms are decoded first.
  return (input) => (parseLiteralAs(rule, r.endsWith('value') ? input : decode(input)), {});
}
