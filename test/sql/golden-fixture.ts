/**
 * A small data set with the values that break naive translators: nulls, quotes, `%`, `_`, backslashes,
 * mixed case, Unicode, an injection attempt, empty strings; and a second company with a colliding number
 * and rows of its own (ECNs, BOM lines) that no read of company A may see or count.
 */
import { createService, type Service } from '../../src/service.js';
import { defaultOptions } from '../../src/config.js';
import { insertEntity } from '../../src/store/insert-entity.js';
import type { StoredValue } from '../../src/edm/values.js';
import type { EntityType } from '../../src/edm/model.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';

/** GUIDs of the fixture rows (deterministic, so SQL parameters are stable). */
export const ID = {
  companyA: '00000000-0000-4000-8000-00000000000a',
  companyB: '00000000-0000-4000-8000-00000000000b',
  ecn: (n: number): string => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
};

type Row = Record<string, StoredValue>;

/** The ECNs of company A: number, and the fields the cases filter on. */
export const ECNS: Row[] = [
  { number: 'N01', drawingNumber: "O'Brien", sourceSequence: 5, status: 'New', changeReasonCode: 'DESIGN', sourceType: 'Item', creationDate: '2025-01-15', drawingTypeCode: 'ASM' },
  { number: 'N02', drawingNumber: '100%_done', sourceSequence: 10, status: 'Approved', changeReasonCode: 'COST', sourceType: 'Prod_x002E__x0020_Order', sourceStatus: 'Released', creationDate: '2025-02-01', drawingTypeCode: 'PRT' },
  { number: 'N03', drawingNumber: null, sourceSequence: 0, status: 'Approved', changeReasonCode: null, creationDate: '2024-12-31', drawingTypeCode: null },
  { number: 'N04', drawingNumber: 'Ünïcödé Ø', sourceSequence: 7, status: 'Pending_x0020_Approval', changeReasonCode: 'QUALITY', creationDate: '2025-03-10', drawingTypeCode: 'ASM' },
  { number: 'N05', drawingNumber: 'abc', sourceSequence: 100, status: 'Rejected', changeReasonCode: 'DESIGN', creationDate: '2025-01-01', drawingTypeCode: 'SCH' },
  { number: 'N06', drawingNumber: 'ABC', sourceSequence: 3, status: 'Closed', changeReasonCode: 'COST', creationDate: '2025-06-30', drawingTypeCode: 'PRT' },
  { number: 'N07', drawingNumber: 'a_c', sourceSequence: 10, status: 'New', changeReasonCode: null, creationDate: '2025-01-15', drawingTypeCode: null },
  { number: 'N08', drawingNumber: "'; DROP TABLE engChangeNotices; --", sourceSequence: 1, status: 'New', changeReasonCode: 'DESIGN', creationDate: null, drawingTypeCode: 'ASM' },
  { number: 'N09', drawingNumber: '', sourceSequence: 2, status: 'Approved', changeReasonCode: 'QUALITY', creationDate: '2025-02-28', drawingTypeCode: '' },
  { number: 'N10', drawingNumber: 'x\\y', sourceSequence: 50, status: 'Closed', changeReasonCode: 'COST', creationDate: '2025-12-31', drawingTypeCode: 'ASM' },
];

/** The change reasons of each company: code and description. */
export const REASONS: readonly (readonly [string, string])[] = [['DESIGN', 'Design improvement'], ['COST', 'Cost reduction'], ['QUALITY', "Quality 'issue' 100%"]];

/** The BOM lines of company A: the ECN (1-based index into ECNS), quantityPer, itemNumber (newQuantityPer is null on all). */
export const LINES: readonly { readonly ecn: number; readonly quantityPer: number; readonly itemNumber: string | null }[] = [
  { ecn: 1, quantityPer: 1, itemNumber: 'CMP-1' },
  { ecn: 1, quantityPer: 2, itemNumber: 'CMP-2' },
  { ecn: 1, quantityPer: 8, itemNumber: null },
  { ecn: 2, quantityPer: 0.5, itemNumber: 'CMP-1' },
];

/** Company B's ECNs (ids ecn(99), ecn(98)) and BOM lines: they must never appear in or count for company A. */
export const COMPANY_B = {
  ecns: [
    { id: 99, number: 'N01', drawingNumber: "O'Brien", sourceSequence: 5 },
    { id: 98, number: 'B02', status: 'Approved', changeReasonCode: 'COST', sourceSequence: 1000, drawingTypeCode: 'ZZZ' },
  ],
  lines: [
    { ecn: 99, quantityPer: 100.25, itemNumber: 'CMP-1' },
    { ecn: 98, quantityPer: 7, itemNumber: 'CMP-9' },
  ],
} as const;

/** Starts a service on an empty database (SQLite in memory, or the PostgreSQL URL `dbFile`) with the fixture rows. */
export async function startGoldenService(dbFile = ':memory:'): Promise<Service> {
  const service = await createService(defaultOptions({ metadataDir: FIXTURE_METADATA, dbFile, logLevel: 'silent' }));
  const svc = service.context;
  const stamp = { userId: 'GOLDEN', now: new Date('2026-01-01T00:00:00.000Z') };
  const type = (name: string) => {
    const t = service.model.entityTypeByName.get(name);
    if (t === undefined) throw new Error(name);
    return t;
  };
  let next = 0;
  const id = (): string => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
  await service.engine.transaction(async (tx) => {
    const insert = (t: EntityType, company: string | undefined, row: Map<string, StoredValue>) => insertEntity(svc, tx, t, company, row, stamp);
    await insert(service.model.company, undefined, new Map<string, StoredValue>([['id', ID.companyA], ['name', 'A'], ['displayName', 'Company A']]));
    await insert(service.model.company, undefined, new Map<string, StoredValue>([['id', ID.companyB], ['name', 'B'], ['displayName', 'Company B']]));
    for (const c of [ID.companyA, ID.companyB]) {
      for (const [code, description] of REASONS) await insert(type('changeReason'), c, new Map<string, StoredValue>([['id', id()], ['code', code], ['description', description]]));
    }
    for (const [i, e] of ECNS.entries()) await insert(type('engChangeNotice'), ID.companyA, new Map<string, StoredValue>([['id', ID.ecn(i + 1)], ...Object.entries(e)]));
    for (const { id: n, ...fields } of COMPANY_B.ecns) {
      await insert(type('engChangeNotice'), ID.companyB, new Map<string, StoredValue>([['id', ID.ecn(n)], ...Object.entries(fields)]));
    }
    const comment = (ecn: number, text: string) =>
      insert(type('engChangeNoticeComment'), ID.companyA, new Map<string, StoredValue>([['id', id()], ['engChangeNoticeId', ID.ecn(ecn)], ['comment', text], ['date', '2025-05-01']]));
    await comment(1, 'first');
    await comment(1, 'Second');
    await comment(2, 'only one');
    const line = (company: string, ecn: number, qty: number, item: string | null) =>
      insert(type('engChangeNoticeBOMLine'), company, new Map<string, StoredValue>([['id', id()], ['engChangeNoticeId', ID.ecn(ecn)], ['type', 'Item'], ['quantityPer', qty], ['itemNumber', item]]));
    for (const l of LINES) await line(ID.companyA, l.ecn, l.quantityPer, l.itemNumber);
    for (const l of COMPANY_B.lines) await line(ID.companyB, l.ecn, l.quantityPer, l.itemNumber);
  });
  return service;
}
