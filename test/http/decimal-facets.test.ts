/**
 * Edm.Decimal Precision and Scale are enforced on input (src/validation/validate-body.ts): a value with
 * more digits than the model declares is a 400 naming the field, and nothing is written. The fixture's
 * BOM line newQuantityPer is Precision 18, Scale 5.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { expectError } from '../rules/rule-helpers.js';

let t: TestService;
let url = '';
beforeAll(async () => {
  t = await startTestService();
  const ecn = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0];
  const line = (await t.call('GET', `/engChangeNotices(${ecn.id})/engChangeNoticeBOMLines?$top=1`)).json.value[0];
  url = `/engChangeNotices(${ecn.id})/engChangeNoticeBOMLines(${line.id})`;
});
afterAll(() => t.close());

test('six digits after the point for Scale 5: 400 naming newQuantityPer, row unchanged', async () => {
  const before = (await t.call('GET', url)).json;
  const r = await t.call('PATCH', url, { body: { newQuantityPer: 1.234567 }, headers: { 'If-Match': '*' } });
  expectError(r, 400, 'Application_FieldValidationException', 'has 6 digits after the decimal point, but at most 5 are allowed (Scale 5)', 'newQuantityPer');
  expect((await t.call('GET', url)).json).toEqual(before);
});

test('fourteen digits before the point for Precision 18, Scale 5: 400; as a string too', async () => {
  expectError(await t.call('PATCH', url, { body: { newQuantityPer: 12345678901234 }, headers: { 'If-Match': '*' } }), 400, 'Application_FieldValidationException', 'Precision 18, Scale 5', 'newQuantityPer');
  expectError(await t.call('PATCH', url, { body: { newQuantityPer: '1.0000001' }, headers: { 'If-Match': '*' } }), 400, 'Application_FieldValidationException', 'Scale 5', 'newQuantityPer');
});

test('values within the facets are written as sent', async () => {
  const r = await t.call('PATCH', url, { body: { newQuantityPer: 2.12345 }, headers: { 'If-Match': '*' } });
  expect(r.status).toBe(200);
  expect(r.json.newQuantityPer).toBe(2.12345);
  expect((await t.call('PATCH', url, { body: { newQuantityPer: 1234567890123.5 }, headers: { 'If-Match': '*' } })).status).toBe(200);
});
