/**
 * Which write jobs are one statement, learned by their first statement's text (the pipelining of
 * postgres-write-batches.ts lets the next job start as soon as such a job sent its statement).
 *
 * A first statement is remembered as a doubt: 1 after a job it began sent more than it, shrinking by
 * DECAY with each job of that one statement (0 when the first job seen was one). A job is taken for
 * one statement while the doubt is below MAX_DOUBT: after a job of two statements (a PATCH answered
 * 412) it takes six jobs of one in a row, so on a row that many clients race for, where such answers
 * come often, the writes wait in order instead of running again.
 */

/** First statements remembered; past this, forgotten and learned again. */
const MAX_REMEMBERED = 2000;
const DECAY = 0.875;
const MAX_DOUBT = 0.5;

export class OneStatementJobs {
  /** By a job's first statement: the doubt that a job beginning with it is that one statement. */
  private readonly doubts = new Map<string, number>();

  /** true when the jobs that begin with `sql` are taken for that one statement. */
  known(sql: string | undefined): boolean {
    if (sql === undefined) return false;
    const doubt = this.doubts.get(sql);
    return doubt !== undefined && doubt < MAX_DOUBT;
  }

  /** A job that began with `sql` was that one statement, or sent more. */
  learn(sql: string, oneStatement: boolean): void {
    const doubt = this.doubts.get(sql);
    if (doubt === undefined && this.doubts.size >= MAX_REMEMBERED) this.doubts.clear();
    this.doubts.set(sql, !oneStatement ? 1 : doubt === undefined ? 0 : doubt * DECAY);
  }
}
