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
import type { DeliveryStore, QueuedNotification } from './delivery-store.js';
import { OutboundError, type OutboundHttp } from './outbound.js';
import type { OutboxSignal } from './outbox-signal.js';
import { signatureHeaders } from './sign.js';
import { RepeatedFailure } from '../util/repeated-failure.js';

/** How the worker paces itself. */
export interface DeliverySettings {
  /** Notifications in flight at once (each subscription has at most one). */
  readonly concurrency: number;
  /** Delay before retry n (1-based), ms; the attempt after the last one is final. */
  readonly backoffMs: readonly number[];
  /** Time limit per POST, ms. */
  readonly timeoutMs: number;
  /** Longest wait between ticks, ms. */
  readonly pollMs: number;
}

/** Outbox rows fanned out per transaction (a tick with more left reschedules itself at once). */
const FAN_OUT_BATCH = 500;
/** What a claim's lease adds to the POST timeout, ms. */
const LEASE_MARGIN_MS = 3_000;
/** How often pending notifications of deleted subscriptions are marked Failed, ms (at once after a subscription change). */
const ORPHAN_SWEEP_MS = 30_000;

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
  private lastSweep = 0;
  private rotation = 0;
  private ticking = false;
  private again = false;
  private passing: Promise<void> = Promise.resolve();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** A tick that fails every time (the database is down) is logged once, then once a minute, and its recovery once. */
  private readonly tickFailures: RepeatedFailure;

  constructor(
    private readonly store: DeliveryStore,
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
      if (change === 'subscriptions') this.lastSweep = 0;
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
      const now = new Date();
      if (now.getTime() - this.lastSweep >= ORPHAN_SWEEP_MS) {
        this.lastSweep = now.getTime();
        const orphans = await this.store.failOrphans(now);
        if (orphans > 0) this.log.warn({ orphans }, 'webhook notifications of deleted subscriptions marked Failed');
      }
      if (this.stopped) return next;
      if ((await this.store.fanOut(now, FAN_OUT_BATCH)) === FAN_OUT_BATCH) next = 0;
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
    const target = await this.store.target(notification.subscriptionId);
    const attemptedAt = new Date();
    const number = notification.attempts + 1;
    if (target === undefined || target.secret === null) {
      const error = target === undefined ? 'The subscription was deleted.' : 'The subscription has no signing secret.';
        await this.store.record(notification, { attempt: number, attemptedAt, durationMs: 0, statusCode: null, error, outcome: 'Failed' });
      return;
    }
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'ecn-odata-webhooks/1',
      ...signatureHeaders(target.secret, notification.webhookId, timestamp, notification.body),
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
    const delay = this.settings.backoffMs[number - 1];
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
