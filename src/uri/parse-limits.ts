/**
 * Parse limits (STYLE habit 6: limits are explicit and checked before work). The URL length is checked
 * before anything is decoded; depth and node count are checked while the parser runs, so a hostile
 * URL is refused after a bounded amount of work instead of after it has been fully parsed.
 */
import { QueryLimitError } from '../errors/odata-error.js';
import { limitSetting, type ServiceLimits } from '../edm/service-limits.js';

/** Limits applied while parsing one URL (URL Conventions leave them to the service, Protocol §9.1.x allows 414). */
export interface ParseLimits {
  /** Longest accepted path or query string, in characters, before decoding (414 beyond). */
  readonly maxUrlLength: number;
  /** Deepest nesting of expressions, parentheses, `$expand` levels and JSON values. */
  readonly maxDepth: number;
  /** Most syntax-tree nodes one path or one query string may produce. */
  readonly maxNodes: number;
}

/** The limits the service runs with unless configured otherwise. */
export const DEFAULT_PARSE_LIMITS: ParseLimits = Object.freeze({ maxUrlLength: 32768, maxDepth: 64, maxNodes: 2000 });

/** The parse limits of a service's settings (service.json `limits`). */
export function parseLimitsOf(limits: Pick<ServiceLimits, 'maxUrlLength' | 'maxExpressionDepth' | 'maxSyntaxNodes'>): ParseLimits {
  return Object.freeze({ maxUrlLength: limits.maxUrlLength, maxDepth: limits.maxExpressionDepth, maxNodes: limits.maxSyntaxNodes });
}

/** Refuses an over-long path or query with 414 before any other work (Protocol §9.1.x, 414 URI Too Long). */
export function checkUrlLength(text: string, limits: ParseLimits, what: string): void {
  if (text.length > limits.maxUrlLength) {
    throw new QueryLimitError(
      `The ${what} is ${text.length} characters long; this service accepts at most ${limits.maxUrlLength} (${limitSetting('maxUrlLength')}).`,
      what,
      414,
    );
  }
}

/**
 * Running counters for one parse. Recursive parsers call `enter` before they recurse, so the
 * JavaScript stack stays bounded by `maxDepth` whatever the input nests.
 */
export class ParseBudget {
  private depth = 0;
  private nodes = 0;

  constructor(readonly limits: ParseLimits) {}

  /** Counts one nesting level; throws 400 when the input nests deeper than `maxDepth`. */
  enter(option: string, position: number): void {
    this.depth++;
    if (this.depth > this.limits.maxDepth) {
      throw new QueryLimitError(
        `The ${describe(option)} nests deeper than ${this.limits.maxDepth} levels (at position ${position}; ${limitSetting('maxExpressionDepth')}).`,
        option,
      );
    }
  }

  /** Leaves a nesting level entered with `enter`. */
  leave(): void {
    this.depth--;
  }

  /** Counts one syntax-tree node; throws 400 when the URL has more than `maxNodes`. */
  node(option: string, position: number): void {
    this.nodes++;
    if (this.nodes > this.limits.maxNodes) {
      throw new QueryLimitError(
        `The ${describe(option)} is too complex: more than ${this.limits.maxNodes} syntax nodes (at position ${position}; ${limitSetting('maxSyntaxNodes')}).`,
        option,
      );
    }
  }
}

function describe(option: string): string {
  return option === 'path' ? 'resource path' : `${option} expression`;
}
