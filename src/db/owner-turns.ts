/**
 * Taking waiting jobs owner by owner: read threads (SQLite) and heavy-read places (PostgreSQL) serve
 * the users whose jobs wait in turn, so one user's many large reads do not all go before another's one.
 */

/**
 * The index in `queue` (oldest first) of the job to run next: the oldest job of the owner served
 * longest ago (`lastServed`: a sequence number per owner; never served comes first). So owners take
 * turns, whatever the number of jobs each has waiting.
 */
export function fairestJob(queue: readonly { readonly owner: string | undefined }[], lastServed: ReadonlyMap<string | undefined, number>): number {
  let best = 0;
  let bestServed = Infinity;
  for (let i = 0; i < queue.length; i++) {
    const served = lastServed.get(queue[i]?.owner) ?? -1;
    if (served < bestServed) {
      best = i;
      bestServed = served;
    }
  }
  return best;
}

/** Owners' turns: which owner was served when (see fairestJob). */
export class OwnerTurns {
  private readonly lastServed = new Map<string | undefined, number>();
  private served = 0;

  /** Takes the next job off `queue` (owners in turn) and records its owner's turn. */
  take<J extends { readonly owner: string | undefined }>(queue: J[]): J {
    const job = queue.splice(fairestJob(queue, this.lastServed), 1)[0] as J;
    this.record(job.owner);
    return job;
  }

  /** Records a turn of `owner` (a job that ran without waiting). */
  record(owner: string | undefined): void {
    this.lastServed.set(owner, this.served++);
    if (this.lastServed.size > 10_000) this.lastServed.clear();
  }
}
