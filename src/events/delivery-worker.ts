/**
 * Delivers business events to webhook subscribers (conventions §6), at least once and in order per
 * subscription. A tick fans committed outbox rows out into notifications, then starts the head of each
 * subscription's queue that is due, up to the concurrency cap; each finished attempt is recorded and
 * kicks the next tick. Ticks run on start-up (so whatever a crash left pending is sent again), after
 * every commit that wrote events or subscriptions (the outbox signal), when a retry falls due, and every
 * `pollMs`. Notifications of a deleted subscription are marked Failed.
 * Retried: network errors, timeouts, 408, 429, 5xx, with the configured backoff; Failed: other statuses
 * (3xx included: redirects are not followed), refused targets, and the attempt after the last backoff.
 * With several instances on one database each head is claimed before it is sent (delivery-store.ts
 * claim), so one instance sends it; a head another instance holds is looked at again when its lease ends.
 */
import type { Logger } from 'pino';
import type { AttemptOutcome } from '../db/framework-tables.js';
import type { AttemptRecord, Claim, QueuedNotification } from './delivery-store.js';
import { OutboundError, type OutboundHttp } from './outbound.js';
import type { OutboxSignal } from './outbox-signal.js';
import { signatureHeaders } from './sign.js';
import { RepeatedFailure } from '../util/repeated-failure.js';

/** How the worker paces itself. */
export interface DeliverySettings {
  /** Notifications in flight at once (each subscription has at most one). */
  readonly concurrency: number;
  /** Delay before retry n (1-based), ms; what follows the last one is the queue's (DeliveryQueue.retryDelay). */
  readonly backoffMs: readonly number[];
  /** Time limit per POST, ms. */
  readonly timeoutMs: number;
  /** Longest wait between ticks, ms. */
  readonly pollMs: number;
}

/** What a claim's lease adds to the POST timeout, ms. */
const LEASE_MARGIN_MS = 3_000;

/**
 * A queue of notifications the worker sends: the business events' (delivery-store.ts) or the entity
 * changes' (change-store.ts). Each lane is sent in order, one notification in flight at a time.
 */
export interface DeliveryQueue {
  /** The work before sending (fan-out, windows, sweeps); resolves to the longest wait before the next pass, ms. */
  prepare(now: Date): Promise<number>;
  /** Subscriptions were created or deleted (an instance's own commit): sweeps that depend on them run at the next pass. */
  subscriptionsChanged(): void;
  /** Lanes with pending notifications. */
  lanes(): Promise<string[]>;
  claim(lane: string, now: number, leaseUntil: number): Promise<Claim | undefined>;
  /** The secrets to sign a notification with; a string: why it cannot be sent (recorded as Failed). */
  secrets(notification: QueuedNotification): Promise<readonly string[] | string>;
  /** The wait before the attempt after failed attempt `attempt` (1-based) on the schedule `backoffMs`, or undefined when that was the last. */
  retryDelay(notification: QueuedNotification, attempt: number, now: number, backoffMs: readonly number[]): number | undefined;
  record(notification: QueuedNotification, attempt: AttemptRecord): Promise<boolean>;
  releaseClaims(): Promise<number>;
}

/** What an answer (or its absence) means for the notification. */
export function classify(status: number | null, error: OutboundError | null): AttemptOutcome {
  if (error !== null) return error.kind === 'forbidden' ? 'Failed' : 'Retry';
  if (status === null) return 'Retry';
  if (status >= 200 && status < 300) return 'Sent';
  if (status === 408 || status === 429 || status >= 500) return 'Retry';
  return 'Failed';
}

/** The delivery loop of one service instance. */
export class DeliveryWorker {
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Number.POSITIVE_INFINITY;
  private unlisten: (() => void) | undefined;
  private rotation = 0;
  private ticking = false;
  private again = false;
  private passing: Promise<void> = Promise.resolve();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** A tick that fails every time (the database is down) is logged once, then once a minute, and its recovery once. */
  private readonly tickFailures: RepeatedFailure;

  constructor(
    private readonly store: DeliveryQueue,
    private readonly outbound: OutboundHttp,
    private readonly settings: DeliverySettings,
    private readonly signal: OutboxSignal,
    private readonly log: Logger,
  ) {
    this.tickFailures = new RepeatedFailure(log, 'webhook delivery tick failed');
  }

  /** Starts delivering: listens for commits and runs the first tick at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unlisten = this.signal.listen((change) => {
      if (change === 'subscriptions') this.store.subscriptionsChanged();
      this.kick();
    });
    this.kick();
  }

  /** Asks for a tick as soon as possible. */
  kick(): void {
    this.schedule(0);
  }

  /** Stops: no new attempts, in-flight POSTs aborted (their notifications stay pending and are sent again later). */
  stop(): void {
    this.stopped = true;
    this.unlisten?.();
    this.unlisten = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    for (const controller of this.aborts) controller.abort();
  }

  /** Resolves when no attempt is in flight (after stop(): once the aborted ones have settled). */
  async idle(): Promise<void> {
    await this.passing;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const due = Date.now() + Math.max(0, delayMs);
    if (this.timer !== undefined && this.timerDue <= due) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      this.tick();
    }, Math.max(0, delayMs));
    // The worker never keeps a process alive on its own (the HTTP server does).
    this.timer.unref();
  }

  /** One pass; a tick asked for while one runs is run after it (never two at once). */
  private tick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    this.again = false;
    this.passing = this.pass()
      .then((next) => this.schedule(this.again ? 0 : next))
      .finally(() => {
        this.ticking = false;
      });
  }

  private async pass(): Promise<number> {
    let next = this.settings.pollMs;
    try {
      next = Math.min(next, await this.store.prepare(new Date()));
      if (this.stopped) return next;
      next = Math.min(next, await this.startDue(Date.now()));
      this.tickFailures.succeeded();
    } catch (err) {
      if (!this.stopped) this.tickFailures.failed(err);
    }
    return next;
  }

  /** Starts the due queue heads up to the cap; returns the delay until the next head falls due (capped by pollMs). */
  private async startDue(now: number): Promise<number> {
    let wait = this.settings.pollMs;
    const lanes = await this.store.lanes();
    // Rotate the starting lane so a cap below the number of subscriptions still serves all of them.
    this.rotation = lanes.length === 0 ? 0 : (this.rotation + 1) % lanes.length;
    for (let i = 0; i < lanes.length && this.inFlight.size < this.settings.concurrency; i++) {
      const lane = lanes[(this.rotation + i) % lanes.length] as string;
      if (this.inFlight.has(lane)) continue;
      const claim = await this.store.claim(lane, now, now + this.leaseMs());
      if (this.stopped) break;
      if (claim === undefined) continue;
      if (claim.kind === 'later') {
        wait = Math.min(wait, Math.max(0, claim.at - now));
        continue;
      }
      const head = claim.notification;
      const attempt = this.attempt(head)
        .catch((err: unknown) => this.log.error({ err, notificationId: head.id }, 'webhook delivery attempt failed'))
        .finally(() => {
          this.inFlight.delete(lane);
          this.kick();
        });
      this.inFlight.set(lane, attempt);
    }
    return wait;
  }

  /** How long a claim holds: longer than a POST may take (its timeout) plus the lookups and the record around it. */
  private leaseMs(): number {
    return this.settings.timeoutMs + LEASE_MARGIN_MS;
  }

  /** Ends this instance's claims on pending notifications (after stop() and idle(), before the database closes). */
  async releaseClaims(): Promise<void> {
    try {
      await this.store.releaseClaims();
    } catch (err) {
      this.log.warn({ err }, 'webhook notification claims not released (other instances take them over when their leases end)');
    }
  }

  private async attempt(notification: QueuedNotification): Promise<void> {
    const secrets = await this.store.secrets(notification);
    const attemptedAt = new Date();
    const number = notification.attempts + 1;
    if (typeof secrets === 'string') {
      await this.store.record(notification, { attempt: number, attemptedAt, durationMs: 0, statusCode: null, error: secrets, outcome: 'Failed' });
      return;
    }
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'ecn-odata-webhooks/1',
      ...signatureHeaders(secrets, notification.webhookId, timestamp, notification.body),
    };
    const controller = new AbortController();
    this.aborts.add(controller);
    let status: number | null = null;
    let failure: OutboundError | null = null;
    try {
      const res = await this.outbound.post({ url: new URL(notification.notificationUrl), body: notification.body, headers, timeoutMs: this.settings.timeoutMs, signal: controller.signal });
      status = res.status;
    } catch (e) {
      failure = e instanceof OutboundError ? e : new OutboundError('network', (e as Error).message);
    } finally {
      this.aborts.delete(controller);
    }
    // Stopped meanwhile: the database may be closed; the notification stays pending and goes out again.
    if (this.stopped) return;
    const durationMs = Date.now() - attemptedAt.getTime();
    let outcome = classify(status, failure);
    const delay = outcome === 'Retry' ? this.store.retryDelay(notification, number, Date.now(), this.settings.backoffMs) : undefined;
    if (outcome === 'Retry' && delay === undefined) outcome = 'Failed';
    const error = failure === null ? null : `${failure.kind}: ${failure.message}`;
    const recorded = await this.store.record(notification, {
      attempt: number,
      attemptedAt,
      durationMs,
      statusCode: status,
      error,
      outcome,
      ...(outcome === 'Retry' && delay !== undefined ? { nextAttemptAt: Date.now() + delay } : {}),
    });
    if (!recorded) this.log.warn({ notificationId: notification.id, webhookId: notification.webhookId }, 'webhook notification claim ran out during the attempt; another instance took it over');
    else if (outcome !== 'Sent') this.log.warn({ notificationId: notification.id, webhookId: notification.webhookId, attempt: number, status, error, outcome }, 'webhook notification not delivered');
  }
}
