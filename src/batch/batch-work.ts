/**
 * One budget for the reads of a whole `$batch` (`limits.maxBatchWork`): the parts of a batch run one
 * after another for one client, and its consecutive GETs share one read job and one deadline, so what
 * bounds them is their sum, not each part's price. Each run of GETs is charged, before it runs, the work
 * its reads do evaluated in full (query/read-cost.ts fullWork: the least a read examines when it does
 * not stop early); a batch that passes the budget could not finish within any deadline the service
 * allows, and is refused rather than left to hold a read place until its deadline.
 */
import { limitSetting } from '../edm/service-limits.js';
import { BatchFormatError } from '../errors/odata-error.js';

/** Work written for people: thousands and millions of rows, rounded. */
function rowsText(n: number): string {
  if (!Number.isFinite(n)) return 'an unbounded number of';
  if (n >= 1e7) return `about ${Math.round(n / 1e6).toLocaleString('en-US')} million`;
  if (n >= 1e6) return `about ${(n / 1e6).toFixed(1)} million`;
  return `about ${Math.round(n).toLocaleString('en-US')}`;
}

/**
 * The 400 for a batch whose reads, `spent` by those that ran and `work` by those about to run, pass
 * `max`; undefined while they fit.
 */
export function batchWorkError(spent: number, work: number, max: number): BatchFormatError | undefined {
  if (spent + work <= max) return undefined;
  return new BatchFormatError(
    `The reads of the batch examine ${rowsText(spent + work)} rows together (an entity written counts 30), more than one batch may (${limitSetting('maxBatchWork')}: ${max.toLocaleString('en-US')}); ` +
      'send them in several batches, or narrow them ($top, $filter on fewer rows, fewer lambdas).',
  );
}
