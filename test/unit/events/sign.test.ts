/** src/events/sign.ts and name-uuid.ts against published test vectors. */
import { signature, signatureHeaders, signingKey } from '../../../src/events/sign.js';
import { nameUuid } from '../../../src/events/name-uuid.js';

test('the Standard Webhooks reference vector', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  expect(signature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  expect(signatureHeaders(secret, 'msg_1', 1700000000, '{}')).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': signature(secret, 'msg_1', 1700000000, '{}') });
  expect(signingKey(secret)).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
});

test('the signature covers id, timestamp and body', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const base = signature(secret, 'msg_1', 1, 'body');
  expect(signature(secret, 'msg_2', 1, 'body')).not.toBe(base);
  expect(signature(secret, 'msg_1', 2, 'body')).not.toBe(base);
  expect(signature(secret, 'msg_1', 1, 'body!')).not.toBe(base);
});

test('name-based UUIDs (version 5) match the published examples', () => {
  const dns = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
  expect(nameUuid(dns, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  expect(nameUuid(dns, 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  expect(() => nameUuid('x', 'y')).toThrow('is not a GUID');
});
