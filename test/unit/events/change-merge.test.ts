/**
 * src/events/change-merge.ts: the merge rules of conventions §12 for the changes of one entity in one
 * window, every pair and a few sequences.
 */
import { mergeChange, type CapturedChange } from '../../../src/events/change-merge.js';

const merged = (...changes: CapturedChange[]): CapturedChange | undefined => changes.reduce<CapturedChange | undefined>((entry, c) => mergeChange(entry, c), undefined);

test.each([
  [['created'], 'created'],
  [['updated'], 'updated'],
  [['deleted'], 'deleted'],
  [['created', 'updated'], 'created'],
  [['created', 'deleted'], undefined],
  [['updated', 'updated'], 'updated'],
  [['updated', 'deleted'], 'deleted'],
  [['deleted', 'created'], 'updated'],
  [['created', 'updated', 'deleted'], undefined],
  [['created', 'deleted', 'created'], 'created'],
  [['updated', 'deleted', 'created', 'updated'], 'updated'],
] as [CapturedChange[], CapturedChange | undefined][])('%j merges to %s', (changes, expected) => {
  expect(merged(...changes)).toBe(expected);
});
