import { answerFollowsRow, conditionalGet } from '../../../src/core/conditional-get.js';
import { parseQueryOptions } from '../../../src/uri/parse-options.js';
import { loadTestModel } from '../../fixtures/model.js';
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
    expect(conditionalGet(req(h), ok, true)).toEqual({ status: 304, headers: { ETag: ETAG, 'OData-Version': '4.0', Vary: 'Accept' } });
  });

  test.each([undefined, 'W/"a"', '"a", W/"b"', 'garbage'])('If-None-Match %s: the answer as it is', (h) => {
    expect(conditionalGet(req(h), ok, true)).toBe(ok);
  });

  test('answers without an ETag, and answers that are not 2xx, are not conditional', () => {
    const collection: ODataResponse = { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"value":[]}' };
    expect(conditionalGet(req('*'), collection, true)).toBe(collection);
    const failed: ODataResponse = { status: 412, headers: { ETag: ETAG }, body: '{}' };
    expect(conditionalGet(req(ETAG), failed, true)).toBe(failed);
  });

  test('If-Match: the answer when it lists the ETag or is *, a 412 otherwise; checked before If-None-Match', () => {
    expect(conditionalGet(req(undefined, ETAG), ok, true)).toBe(ok);
    expect(conditionalGet(req(undefined, '*'), ok, true)).toBe(ok);
    expect(() => conditionalGet(req(undefined, 'W/"a"'), ok, false)).toThrow(PreconditionFailedError);
    expect(() => conditionalGet(req(ETAG, 'W/"a"'), ok, true)).toThrow(PreconditionFailedError);
    expect(conditionalGet(req(ETAG, ETAG), ok, true).status).toBe(304);
  });

  test('a 204 with an ETag (an empty media value) is conditional too', () => {
    expect(conditionalGet(req(ETAG), { status: 204, headers: { ETag: ETAG } }, true)).toEqual({ status: 304, headers: { ETag: ETAG } });
  });

  test('a GET whose answer the row alone does not make is answered in full (the If-Match check stays)', () => {
    expect(conditionalGet(req(ETAG), ok, false)).toBe(ok);
    expect(() => conditionalGet(req(ETAG, 'W/"a"'), ok, false)).toThrow(PreconditionFailedError);
  });
});

describe('answerFollowsRow', () => {
  const model = loadTestModel();
  const type = (name: string) => model.entityTypes.find((t) => t.name === name)!;
  const options = (query: string) => parseQueryOptions(query);
  const ecn = type('engChangeNotice');
  const comment = type('engChangeNoticeComment');
  const eco = type('engChangeOrder');
  const entity = { kind: 'entity' } as const;

  test.each([
    [comment, '', true],
    [comment, '$select=comment,lineNo', true],
    [comment, '$expand=engChangeNotice', false],
    [ecn, '', false], // changeReasonDescription, bomExists and bomCommentExists come from other rows
    [ecn, '$select=*', false],
    [ecn, '$select=number,status,drawingNumber', true],
    [ecn, '$select=number,bomExists', false],
    [ecn, '$select=number&$expand=engChangeNoticeComments', false],
  ])('%#: %s', (t, query, expected) => {
    expect(answerFollowsRow(t, entity, options(query))).toBe(expected);
  });

  test('a media value follows its row; a property only when it is kept in the row; collections have no ETag', () => {
    const media = eco.properties.find((p) => p.storage.kind === 'media')!;
    expect(answerFollowsRow(eco, { kind: 'media', property: media }, options(''))).toBe(true);
    expect(answerFollowsRow(ecn, { kind: 'property', property: ecn.propertyByName.get('number')!, value: false }, options(''))).toBe(true);
    expect(answerFollowsRow(ecn, { kind: 'property', property: ecn.propertyByName.get('bomExists')!, value: true }, options(''))).toBe(false);
    expect(answerFollowsRow(ecn, { kind: 'collection' }, options(''))).toBe(false);
    expect(answerFollowsRow(ecn, { kind: 'count' }, options(''))).toBe(false);
  });
});
