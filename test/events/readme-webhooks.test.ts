/**
 * The README's signature verification snippet (section Webhooks), run as written against a real
 * notification: it accepts the service's signature and rejects a changed body, another secret and a
 * stale timestamp.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/serve-process.js';
import { REPO_METADATA, startTestService } from '../helpers/test-service.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { ecoWithTasks, release, subscribe } from './event-helpers.js';

type Verify = (secret: string, headers: Record<string, string>, body: string, toleranceSeconds?: number) => boolean;

test("the README's verifyWebhook accepts the service's signatures and nothing else", async () => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const snippet = /## Webhooks[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(snippet).toBeDefined();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-webhooks-'));
  const receiver = await startReceiver();
  const t = await startTestService({ metadataDir: REPO_METADATA, webhooks: { deliver: true, allowPrivate: true, pollMs: 50 } });
  try {
    fs.writeFileSync(path.join(dir, 'verify.mjs'), String(snippet));
    const { verifyWebhook } = (await import(pathToFileURL(path.join(dir, 'verify.mjs')).href)) as { verifyWebhook: Verify };
    const sub = await subscribe(t, receiver, t.companyIds[0] as string, '/readme');
    const { ecoId } = await ecoWithTasks(t, 1);
    await release(t, ecoId);
    await receiver.waitFor(() => receiver.accepted.length === 1, 10_000, 'the notification');
    const r = receiver.accepted[0];
    if (r === undefined) throw new Error('no notification');
    const headers = { 'webhook-id': r.webhookId, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
    expect(verifyWebhook(sub.secret, headers, r.body)).toBe(true);
    expect(verifyWebhook(sub.secret, headers, r.body.replace('"1.0"', '"2.0"'))).toBe(false);
    expect(verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, headers, r.body)).toBe(false);
    expect(verifyWebhook(sub.secret, { ...headers, 'webhook-timestamp': String(Number(r.timestamp) - 3600) }, r.body)).toBe(false);
    expect(verifyWebhook(sub.secret, { ...headers, 'webhook-id': 'msg_other' }, r.body)).toBe(false);
  } finally {
    await t.close();
    await t.service.delivery?.idle();
    await receiver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
