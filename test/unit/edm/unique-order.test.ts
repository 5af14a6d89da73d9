import { loadModel } from '../../../src/edm/load-model.js';
import { sortsUniquely } from '../../../src/edm/unique-order.js';
import type { EntityType } from '../../../src/edm/model.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';

const model = loadModel(FIXTURE_METADATA);
const type = (name: string): EntityType => {
  const t = model.entityTypeByName.get(name);
  if (t === undefined) throw new Error(`no ${name}`);
  return t;
};

test('a unique non-nullable property orders uniquely, alone or among other columns', () => {
  expect(sortsUniquely(type('engChangeNotice'), new Set(['number']))).toBe(true);
  expect(sortsUniquely(type('engChangeNotice'), new Set(['status', 'number']))).toBe(true);
  expect(sortsUniquely(type('engChangeNotice'), new Set(['status']))).toBe(false);
});

test('an alternate key orders uniquely only with all of its columns', () => {
  expect(sortsUniquely(type('engChangeOrderTask'), new Set(['engChangeOrderId', 'lineNo']))).toBe(true);
  expect(sortsUniquely(type('engChangeOrderTask'), new Set(['engChangeOrderId']))).toBe(false);
});

test('a group and line number that nothing declares unique do not (comments: the key follows them)', () => {
  expect(sortsUniquely(type('engChangeNoticeComment'), new Set(['engChangeNoticeId', 'lineNo']))).toBe(false);
});
