import { conditionalGet } from '../../../src/core/conditional-get.js';
import { PreconditionFailedError } from '../../../src/errors/odata-error.js';
import type { ODataRequest, ODataResponse } from '../../../src/core/request.js';

const ETAG = 'W/"MTc5NTU3NjE2OTMwMzAwMg=="';
const req = (ifNoneMatch?: string, ifMatch?: string): ODataRequest => ({
  method: 'GET',
  path: '/x',
  rawQuery: '',
  headers: { ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }), ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
  serviceRootUrl: 'http://h/api',
  requestId: 'r',
});
const ok: ODataResponse = { status: 200, headers: { 'Content-Type': 'application/json; odata.metadata=minimal', ETag: ETAG, 'OData-Version': '4.0', 'Preference-Applied': 'odata.maxpagesize=1', Vary: 'Accept' }, body: '{"id":1}' };

describe('conditionalGet', () => {
  test.each([ETAG, '*', '"MTc5NTU3NjE2OTMwMzAwMg=="', `W/"a", ${ETAG}`, ` ${ETAG} `])('If-None-Match %s: 304 with the headers of the 200 that do not describe its content', (h) => {
    expect(conditionalGet(req(h), ok)).toEqual({ status: 304, headers: { ETag: ETAG, 'OData-Version': '4.0', Vary: 'Accept' } });
  });

  test.each([undefined, 'W/"a"', '"a", W/"b"', 'garbage'])('If-None-Match %s: the answer as it is', (h) => {
    expect(conditionalGet(req(h), ok)).toBe(ok);
  });

  test('answers without an ETag, and answers that are not 2xx, are not conditional', () => {
    const collection: ODataResponse = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"value":[]}' };
    expect(conditionalGet(req('*'), collection)).toBe(collection);
    const failed: ODataResponse = { status: 412, headers: { ETag: ETAG }, body: '{}' };
    expect(conditionalGet(req(ETAG), failed)).toBe(failed);
  });

  test('If-Match: the answer when it lists the ETag or is *, a 412 otherwise; checked before If-None-Match', () => {
    expect(conditionalGet(req(undefined, ETAG), ok)).toBe(ok);
    expect(conditionalGet(req(undefined, '*'), ok)).toBe(ok);
    expect(() => conditionalGet(req(undefined, 'W/"a"'), ok)).toThrow(PreconditionFailedError);
    expect(() => conditionalGet(req(ETAG, 'W/"a"'), ok)).toThrow(PreconditionFailedError);
    expect(conditionalGet(req(ETAG, ETAG), ok).status).toBe(304);
  });

  test('a 204 with an ETag (an empty media value) is conditional too', () => {
    expect(conditionalGet(req(ETAG), { status: 204, headers: { ETag: ETAG } })).toEqual({ status: 304, headers: { ETag: ETAG } });
  });
});
