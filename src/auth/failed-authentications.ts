/**
 * The failed-authentication limit (conventions §11): failures are counted per client address and per
 * (address, credential) in fixed windows. It never refuses valid credentials: a credential that failed
 * `max` times from an address is refused (429) without being checked again, and once an address has
 * `max` failures of any credentials its further *failing* requests get 429 instead of 401, while a
 * request from it whose credentials verify is served as usual. Behind a proxy or NAT one misconfigured
 * client no longer locks everyone out. Authorization denials (401 company, 403) are not counted: the
 * caller did authenticate.
 */
import { createHash } from 'node:crypto';
import { ipKeyGenerator } from 'express-rate-limit';

interface Window {
  count: number;
  resetAt: number;
}

/** Fixed-window failure counters, bounded in number (an attacker varying credentials cannot grow them without end). */
export class FailedAuthentications {
  private readonly windows = new Map<string, Window>();
  /** When the last failure was counted (ms since epoch); none yet: -Infinity. */
  private lastFailure = -Infinity;

  constructor(
    private readonly windowMs: number,
    private readonly max: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** false when nothing can be blocked (no failure within the last window): spares the lookups per request. */
  anyRecent(): boolean {
    return this.now() - this.lastFailure < this.windowMs;
  }

  /** Seconds until this credential may be tried again from this address, or undefined when it may be now. */
  credentialBlocked(address: string | undefined, credential: string | undefined): number | undefined {
    return this.retryAfter(this.pairKey(address, credential));
  }

  /**
   * Counts a failed authentication; gives the seconds the address must wait when it already had `max`
   * failures in the window (its failing requests then get 429 instead of 401).
   */
  failed(address: string | undefined, credential: string | undefined): number | undefined {
    const t = this.now();
    this.lastFailure = t;
    const addressKey = this.addressKey(address);
    const wait = this.retryAfter(addressKey);
    this.count(this.pairKey(address, credential), t);
    this.count(addressKey, t);
    return wait;
  }

  private retryAfter(key: string): number | undefined {
    const w = this.windows.get(key);
    if (w === undefined || w.count < this.max) return undefined;
    const left = w.resetAt - this.now();
    if (left <= 0) return undefined;
    return Math.max(1, Math.ceil(left / 1000));
  }

  private count(key: string, t: number): void {
    let w = this.windows.get(key);
    if (w === undefined || w.resetAt <= t) {
      if (w === undefined && this.windows.size >= this.maxKeys) {
        this.prune(t);
        if (this.windows.size >= this.maxKeys) return; // full of live windows: the address counter still counts
      }
      w = { count: 0, resetAt: t + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
  }

  /** An IPv6 address counts by its /56 subnet (one client usually holds all of one). */
  private addressKey(address: string | undefined): string {
    return `a ${address === undefined || address === '' ? '-' : ipKeyGenerator(address)}`;
  }

  /** The credential is kept only as a hash prefix, never as sent. */
  private pairKey(address: string | undefined, credential: string | undefined): string {
    const digest = createHash('sha256').update(credential ?? '').digest('base64url').slice(0, 22);
    return `${this.addressKey(address)} ${digest}`;
  }
}
