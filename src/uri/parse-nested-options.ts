/**
 * Options in parentheses after an `$expand` or `$select` item, separated by `;` (ABNF `expandOption`,
 * `expandRefOption`, `expandCountOption`, `selectOption`; URL Conventions 4.01 §5.1.2, §5.1.3). Which
 * options are allowed depends on what precedes the parentheses, e.g. only `$filter` and `$search`
 * after `/$count`. Each level of nesting passes the depth budget.
 */
import type { NestedQueryOptions } from './ast.js';
import type { ExprParser } from './parse-expression.js';
import { readOptionValue, systemOptionName, type OptionDraft, type SystemOption } from './parse-option-value.js';

/** An option allowed in parentheses: a system option or a parameter alias definition. */
export type NestedOption = SystemOption | 'alias';

const COUNT_OPTIONS: readonly NestedOption[] = ['filter', 'search'];
const REF_OPTIONS: readonly NestedOption[] = [...COUNT_OPTIONS, 'orderby', 'skip', 'top', 'count'];

/** What each kind of item allows inside its parentheses. */
export const NESTED_OPTIONS = {
  /** `nav/$count(...)`: ABNF `expandCountOption`. */
  count: new Set<NestedOption>(COUNT_OPTIONS),
  /** `nav/$ref(...)`: ABNF `expandRefOption`. */
  ref: new Set<NestedOption>(REF_OPTIONS),
  /** `nav(...)`: ABNF `expandOption`. */
  expand: new Set<NestedOption>([...REF_OPTIONS, 'select', 'expand', 'compute', 'levels', 'apply', 'alias']),
  /** `*(...)`: only `$levels`. */
  star: new Set<NestedOption>(['levels']),
  /** `$select=prop(...)`: ABNF `selectOption`. */
  select: new Set<NestedOption>([...REF_OPTIONS, 'select', 'compute', 'alias']),
} as const;

/** Parses `( option ; option ... )` at the cursor; `after` names the item for messages (e.g. "/$ref"). */
export function parseNestedOptions(p: ExprParser, allowed: ReadonlySet<NestedOption>, after: string): NestedQueryOptions {
  const lx = p.lx;
  const open = lx.pos;
  lx.enter(open);
  lx.expect('(');
  const draft: OptionDraft = {};
  const seen = new Set<string>();
  for (;;) {
    const at = lx.pos;
    if (lx.char() === '@') {
      if (!allowed.has('alias')) throw lx.error(`parameter aliases are not allowed after ${after}`, at);
      lx.pos++;
      const name = lx.expectIdentifier('a parameter alias name after @');
      lx.expect('=', `'=' after @${name}`);
      const aliases = new Map(draft.aliases ?? []);
      if (aliases.has(name)) throw lx.error(`@${name} is defined twice`, at);
      aliases.set(name, p.expression());
      draft.aliases = aliases;
    } else {
      const written = (lx.eat('$') ? '$' : '') + (lx.identifier() ?? '');
      const option = systemOptionName(written);
      if (option === undefined) throw lx.expected(`a query option such as $filter or $select inside ${after}(...)`, at);
      if (!allowed.has(option)) {
        throw lx.error(`$${option} is not allowed after ${after}; allowed are ${[...allowed].map(label).join(', ')}`, at);
      }
      if (seen.has(option)) throw lx.error(`$${option} appears twice in the same parentheses`, at);
      seen.add(option);
      lx.expect('=', `'=' after ${written}`);
      readOptionValue(option, p, draft);
    }
    if (lx.eat(')')) break;
    lx.expect(';', "';' or ')'");
  }
  lx.leave();
  return draft;
}

function label(option: NestedOption): string {
  return option === 'alias' ? '@alias=value' : `$${option}`;
}
