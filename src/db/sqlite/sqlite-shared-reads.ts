/**
 * Shared read snapshots: the reads of the requests served in one event-loop turn run in one read
 * transaction, instead of one autocommit transaction per statement.
 *
 * Why: in WAL mode every transaction takes and releases a read lock on the shared-memory file with
 * fcntl calls, for every statement. A GET by key ran two statements; shared by the requests of a
 * turn, the locking costs once per turn, which saved a fifth of a GET by key's CPU under load.
 *
 * Lifetime: the snapshot opens at the first read while a request is in flight, and ends (COMMIT of a
 * read transaction: nothing is written) at the end of the event-loop turn (setImmediate) or before
 * any write. A request joins it only when the HTTP layer read it from a socket in this turn: its
 * bytes were then in the kernel before the turn's poll returned, so before the snapshot opened, and
 * whatever its client saw committed before sending it is in the snapshot. Any other request (an
 * in-process caller) ends the snapshot first, so its first read sees the newest data. Reads outside
 * requests (start-up, the command line, the delivery worker) are autocommit as before.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** The read snapshot of one connection (see the file comment). */
export class SharedReads {
  /** Number of the open snapshot (each snapshot gets a new one). */
  private gen = 0;
  private inFlight = 0;
  private open = false;
  private endScheduled = false;
  private readonly begin: BetterSqlite3.Statement;
  private readonly commit: BetterSqlite3.Statement;

  constructor(private readonly conn: BetterSqlite3.Database) {
    this.begin = conn.prepare('BEGIN');
    this.commit = conn.prepare('COMMIT');
  }

  /** A request starts; unless `joinTurn`, the current snapshot ends so that it reads the newest data. */
  enter(joinTurn: boolean): void {
    this.inFlight++;
    if (!joinTurn) this.end();
  }

  /** A request ended. */
  leave(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** Before a read: opens the snapshot when a request is in flight and no transaction is open. */
  beforeRead(): void {
    if (this.open || this.inFlight === 0 || this.conn.inTransaction) return;
    this.begin.run();
    this.open = true;
    this.gen++;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(() => {
        this.endScheduled = false;
        this.end();
      });
    }
  }

  /** Ends the snapshot (before any write, at the end of the turn, for a request that must read the newest data). */
  end(): void {
    if (!this.open) return;
    this.open = false;
    if (this.conn.open && this.conn.inTransaction) this.commit.run();
  }

  /**
   * The number of the open snapshot, or -1 when none is open. While it stays the same, a value read
   * in it is still what a read would return (nothing commits into an open snapshot, and a write of
   * this connection ends it first); -1 means every read is its own transaction and nothing can be reused.
   */
  get snapshot(): number {
    return this.open ? this.gen : -1;
  }
}
