/**
 * Bound paths of GETs of one entity by its GUID key with no query options
 * (`/companies(<id>)/engChangeNotices(<id>)`, `/engChangeNotices(<id>)`): the commonest request of
 * OData clients. Parsing, binding and checking such a path gives the same result for every pair of
 * GUIDs but the GUIDs themselves, so it is done once per path shape (the path with its GUID runs
 * blanked out) and later paths of that shape get a copy of the bound path with their GUIDs put in:
 * the resource path templates, the binder and the option checks took about 5 µs of a GET by key
 * under load, and the copy is a small part of that.
 *
 * A shape is kept only when the binding of the path it was learnt from is exactly that: one step, an
 * entity by key, whose key is the path's last GUID, and the company of `companies(<id>)` its first
 * (or no company in the path and one GUID). Like the path templates (uri/path-templates.ts), a
 * shape tells whether each GUID starts with a digit or a letter, the one thing about a GUID's digits
 * the lexer may tell apart. Anything else (other paths, a NUL, which the general path refuses) is
 * left to the general path: `bind` gives undefined.
 */
import type { EdmModel } from '../edm/model.js';
import type { QueryOptions } from '../uri/ast.js';
import { bindPath } from '../uri/bind-path.js';
import type { CompanyRef, PathStep } from '../uri/bound-path.js';
import { GUID_LENGTH, guidRuns, type PathTemplates } from '../uri/path-templates.js';
import type { QueryOptionsCache } from '../uri/query-options-cache.js';
import { SecondSightCache } from '../util/second-sight-cache.js';
import { checkQueryOptions } from './check-query-options.js';
import type { ResourcePathBinding } from './operation-context.js';
import { KeyReadPlans } from './operations/read-by-key.js';

/** A GET by key, bound, with its (empty) query options. */
export interface KeyRead {
  readonly bound: ResourcePathBinding;
  readonly options: QueryOptions;
  /** What operations/read-by-key.ts keeps for the shape, by request context (shared by the shape's requests). */
  readonly plans: KeyReadPlans;
}

/** What the paths of one shape bind to, but their GUIDs. */
interface Shape {
  readonly bound: ResourcePathBinding;
  readonly step: PathStep;
  readonly keyProperty: string;
  readonly options: QueryOptions;
  /** The path gives the company (`companies(<id>)/...`, its first GUID). */
  readonly companyInPath: boolean;
  readonly plans: KeyReadPlans;
}

/** The marks that stand for a GUID starting with a digit or with a letter in a shape's text. */
const DIGIT_FIRST = '\u0000';
const LETTER_FIRST = '\u0001';

/** Bound GETs by key, learnt once per path shape (see the file comment). Bounded: cleared when full. */
export class KeyReadPaths {
  private readonly shapes: SecondSightCache<Shape | null>;

  constructor(
    private readonly model: EdmModel,
    private readonly paths: PathTemplates,
    private readonly queryOptions: QueryOptionsCache,
    limit = 256,
  ) {
    this.shapes = new SecondSightCache<Shape | null>(limit);
  }

  /**
   * The binding of a GET of `rawPath` with no query string when it is one entity by its GUID key;
   * undefined when the general path must parse and bind it (another path, or a shape not learnt yet).
   */
  bind(rawPath: string): KeyRead | undefined {
    const starts = guidRuns(rawPath);
    if (starts.length === 0 || starts.length > 2 || rawPath.includes(DIGIT_FIRST) || rawPath.includes(LETTER_FIRST)) return undefined;
    const shape = this.shapes.get(shapeText(rawPath, starts), () => this.learn(rawPath, starts));
    if (shape === undefined || shape === null) return undefined;
    const guid = (start: number): string => rawPath.slice(start, start + GUID_LENGTH).toLowerCase();
    const key = guid(starts[starts.length - 1] as number);
    const company: CompanyRef = shape.companyInPath ? { kind: 'path', id: guid(starts[0] as number) } : shape.bound.company;
    const step: PathStep = { ...shape.step, key, keyConditions: [{ property: shape.keyProperty, value: key }] };
    return { bound: { ...shape.bound, company, steps: [step] }, options: shape.options, plans: shape.plans };
  }

  /** The shape of `rawPath` when its binding is a GET by key as the file comment says; null otherwise. */
  private learn(rawPath: string, starts: readonly number[]): Shape | null {
    const options = this.queryOptions.parse('');
    let bound;
    try {
      bound = bindPath(this.model, this.paths.parse(rawPath));
      checkQueryOptions(options, bound, 'GET');
    } catch {
      return null; // the general path answers with the error
    }
    if (bound.kind !== 'resource' || bound.target.kind !== 'entity' || bound.steps.length !== 1) return null;
    const step = bound.steps[0] as PathStep;
    const guids = starts.map((s) => rawPath.slice(s, s + GUID_LENGTH).toLowerCase());
    const key = guids[guids.length - 1];
    const condition = step.keyConditions?.[0];
    if (step.nav !== undefined || !step.single || step.key !== key || step.keyConditions?.length !== 1 || condition?.value !== key) return null;
    const companyInPath = guids.length === 2;
    if (companyInPath ? bound.company.kind !== 'path' || bound.company.id !== guids[0] : bound.company.kind === 'path') return null;
    return { bound, step, keyProperty: (condition as { property: string }).property, options, companyInPath, plans: new KeyReadPlans() };
  }
}

/** `rawPath` with each GUID run replaced by the mark of its first character. */
function shapeText(rawPath: string, starts: readonly number[]): string {
  let text = '';
  let from = 0;
  for (const start of starts) {
    text += rawPath.slice(from, start) + (rawPath.charCodeAt(start) > 0x39 ? LETTER_FIRST : DIGIT_FIRST);
    from = start + GUID_LENGTH;
  }
  return text + rawPath.slice(from);
}
