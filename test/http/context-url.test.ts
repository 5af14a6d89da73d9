/**
 * @odata.context with $select and $expand in the OData 4.0 form Power Query accepts: expanded navigations
 * without "()" (OData/WebApi#2088), nested select lists in parentheses, each level judged by its own $select.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

test.each([
  ['$select=number', 'engChangeNotices(number)'],
  ['$select=number&$expand=engChangeNoticeComments', 'engChangeNotices(number,engChangeNoticeComments)'],
  ['$expand=engChangeNoticeComments', 'engChangeNotices'],
  ['$expand=engChangeNoticeComments($select=comment)', 'engChangeNotices(engChangeNoticeComments(comment))'],
  ['$select=number&$expand=engChangeNoticeComments($expand=engChangeNotice)', 'engChangeNotices(number,engChangeNoticeComments)'],
  ['$select=number&$expand=engChangeNoticeComments($select=comment;$expand=engChangeNotice)', 'engChangeNotices(number,engChangeNoticeComments(comment,engChangeNotice))'],
])('%s → #%s', async (query, context) => {
  const r = await t.call('GET', `/engChangeNotices?$top=1&${query}`);
  expect(r.status).toBe(200);
  expect(r.json['@odata.context']).toBe(`${t.root}/$metadata#${context}`);
});
