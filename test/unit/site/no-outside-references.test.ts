/**
 * What a user reads about the shipped model ($metadata as XML and JSON, openapi.json, the index page
 * and the docs page) names no document outside the repository and no stage of the project's history:
 * the descriptions in metadata/ go into $metadata and OpenAPI as they are written. References to the
 * OData standard ("OData URL Conventions §5.1.1", "JSON Format §19", RFCs) are the user's to follow
 * and stay.
 */
import request from 'supertest';
import type { Express } from 'express';
import { createExpressApp } from '../../../src/http/express-app.js';
import { REPO_METADATA, startTestService, type TestService } from '../../helpers/test-service.js';

/** A project document or stage: its conventions (not OData's URL Conventions), its notes, its waves. */
const OUTSIDE = /(?<!URL )conventions(\.md)? ?§|service-interface|research.notes|parser evaluation|\bwave [0-9]|\(§/i;

let t: TestService;
let app: Express;
beforeAll(async () => {
  t = await startTestService({ metadataDir: REPO_METADATA });
  app = createExpressApp(t.service);
});
afterAll(() => t.close());

const pages: readonly [string, string][] = [
  ['$metadata (XML)', '/api/v2.0/$metadata'],
  ['$metadata (JSON)', '/api/v2.0/$metadata?$format=json'],
  ['openapi.json', '/api/v2.0/openapi.json'],
  ['the index page', '/'],
  ['the docs page', '/docs'],
  ["the docs page's script", '/docs/docs.js'],
];

test.each(pages)('%s names no document outside the repository and no project stage', async (_name, url) => {
  const r = await request(app).get(url).expect(200);
  expect(r.text.length).toBeGreaterThan(0);
  const found = OUTSIDE.exec(r.text);
  expect(found === null ? null : r.text.slice(Math.max(0, found.index - 80), found.index + 40)).toBeNull();
});

test('the pattern tells OData references from project references', () => {
  expect('OData URL Conventions §5.1.1').not.toMatch(OUTSIDE);
  expect('OData JSON Format §19.1').not.toMatch(OUTSIDE);
  for (const s of ['(§5.1.2)', '(conventions §6)', 'see conventions.md §2', 'service-interface.md, Events', 'the research notes', 'until wave 2']) expect(s).toMatch(OUTSIDE);
});
