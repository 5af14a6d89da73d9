/**
 * Webhook signatures in the Standard Webhooks form (standardwebhooks.com): the headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>` of
 * `${id}.${timestamp}.${body}`, keyed with the base64-decoded part of the `whsec_` secret.
 */
import { createHmac } from 'node:crypto';

/** The HMAC key of a `whsec_<base64>` secret: the decoded bytes (a secret without the prefix is used as base64 too). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** `v1,<base64 signature>` of one message. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The three signature headers of one delivery attempt. Several secrets (one POST carrying the entries of
 * several subscriptions) give one signature each, separated by spaces, as Standard Webhooks allows: a
 * receiver checks the one its secret makes.
 */
export function signatureHeaders(secrets: string | readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  const list = typeof secrets === 'string' ? [secrets] : [...new Set(secrets)];
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': list.map((s) => signature(s, id, timestamp, body)).join(' ') };
}
