/**
 * The demo data set: two companies, each with change reasons, work center groups, contacts, user
 * setups, ECNs with comments and BOM lines, and ECOs with tasks linked by predecessors (a chain and a
 * diamond). Deterministic: fixed seed, fixed clock. Written through `insertEntity`, so every model
 * rule (defaults, number series, references) applies as for API writes.
 */
import type { EntityType } from '../edm/model.js';
import type { StoredValue } from '../edm/values.js';
import { insertEntity } from '../store/insert-entity.js';
import type { ServiceContext } from '../core/service-context.js';
import { compile } from '../sql/compile.js';
import { constant, select } from '../sql/build.js';
import { Prng } from './prng.js';
import type { UserStore } from '../auth/user-store.js';

/** What seeding wrote. */
export interface SeedResult {
  readonly summary: string;
  readonly companyIds: readonly string[];
}

/** The demo company unscoped URLs use when `serve --seed demo` is given no other. */
export const DEMO_DEFAULT_COMPANY = 'CRONUS';

/** Demo users and their grants (company name → permission sets); ADMIN gets the token `npm start` prints. */
export const DEMO_USERS: readonly { userId: string; email: string; defaultCompany?: string; grants: Readonly<Record<string, readonly string[]>> }[] = [
  { userId: 'ADMIN', email: 'admin@cronus.example', defaultCompany: 'CRONUS', grants: { CRONUS: ['SUPER'], FABRIKAM: ['SUPER'] } },
  { userId: 'JSMITH', email: 'john.smith@cronus.example', grants: { CRONUS: ['ECN-WRITE', 'TASK-WRITE', 'EVENTS'] } },
  { userId: 'KLEE', email: 'kim.lee@cronus.example', grants: { CRONUS: ['ECN-READ', 'TASK-READ'] } },
  { userId: 'PLANNER', email: 'planner@cronus.example', grants: { CRONUS: ['TASK-WRITE'] } },
  { userId: 'AUDITOR', email: 'auditor@fabrikam.example', grants: { FABRIKAM: ['ECN-READ', 'TASK-READ'] } },
];

const COMPANIES = [
  { name: 'CRONUS', displayName: 'CRONUS International Ltd.' },
  { name: 'FABRIKAM', displayName: 'Fabrikam Manufacturing Inc.' },
];
const REASONS: [string, string][] = [
  ['DESIGN', 'Design improvement'],
  ['COST', 'Cost reduction'],
  ['QUALITY', 'Quality issue'],
  ['SUPPLIER', 'Supplier change'],
  ['SAFETY', 'Safety requirement'],
];
const ECN_STATUS = ['New', 'Pending_x0020_Approval', 'Approved', 'Approved', 'Rejected', 'Closed'];
const SOURCES: [string, string, string][] = [
  ['Prod_x002E__x0020_Order', 'Released', '_x0020_'],
  ['Sales_x0020_Order', '_x0020_', 'Order'],
  ['Sales_x0020_Quote', '_x0020_', 'Quote'],
  ['Item', '_x0020_', '_x0020_'],
];
const NOUNS = ['bracket', 'housing', 'shaft', 'gear', 'panel', 'valve', 'flange', 'bearing'];
const ADJ = ['steel', 'aluminium', 'reinforced', 'compact', 'sealed', 'coated'];

type Values = Record<string, StoredValue>;

/** Seeds the demo data when the database has no company yet; undefined when it already has data. */
export async function seedDemoIfEmpty(svc: ServiceContext): Promise<SeedResult | undefined> {
  const { model, engine } = svc;
  const any = select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: model.company.table, alias: 'c' }, limit: constant(1) });
  if ((await engine.db.get(compile(any, engine.dialect))) !== undefined) return undefined;
  const rnd = new Prng(20260115);
  const now = new Date('2026-01-15T09:00:00.000Z');
  const counts = new Map<string, number>();
  const type = (name: string): EntityType => {
    const t = model.entityTypeByName.get(name);
    if (t === undefined) throw new Error(`the demo data needs entity type '${name}' in the model`);
    return t;
  };
  const companyIds: string[] = [];
  await engine.transaction(async (tx) => {
    const insert = async (typeName: string, companyId: string | undefined, values: Values): Promise<Values> => {
      const t = type(typeName);
      const row = new Map<string, StoredValue>([['id', rnd.guid()], ...Object.entries(values)]);
      const stored = await insertEntity(svc, tx, t, companyId, row, { userId: 'ADMIN', now });
      counts.set(t.entitySet, (counts.get(t.entitySet) ?? 0) + 1);
      return stored as Values;
    };
    for (const [ci, c] of COMPANIES.entries()) {
      const company = await insert(model.company.name, undefined, { name: c.name, displayName: c.displayName });
      const cid = String(company['id']);
      companyIds.push(cid);
      const domain = c.name.toLowerCase();
      for (const [code, description] of REASONS) await insert('changeReason', cid, { code, description });
      await insert('workCenterGroup', cid, { code: 'WC-ASM', name: 'Assembly', email: `assembly@${domain}.example` });
      await insert('workCenterGroup', cid, { code: 'WC-MACH', name: 'Machining', email: `machining@${domain}.example` });
      await insert('workCenterGroup', cid, { code: 'WC-QA', name: 'Quality assurance', email: null });
      await insert('contact', cid, { number: 'CT0001', name: 'John Smith', email: `john.smith@${domain}.example` });
      await insert('contact', cid, { number: 'CT0002', name: 'Kim Lee', email: null });
      await insert('userSetup', cid, { userId: 'ADMIN', email: `admin@${domain}.example`, contactNo: null });
      await insert('userSetup', cid, { userId: 'JSMITH', email: null, contactNo: 'CT0001' });
      await insert('userSetup', cid, { userId: 'KLEE', email: null, contactNo: 'CT0002' });

      const ecnNumbers: string[] = [];
      for (let i = 0; i < 12; i++) {
        const [sourceType, sourceStatus, salesType] = SOURCES[i % SOURCES.length] as [string, string, string];
        const ecn = await insert('engChangeNotice', cid, {
          status: ECN_STATUS[i % ECN_STATUS.length] ?? 'New',
          itemNumber: `ITM-${String(1000 + ci * 100 + i)}`,
          itemDescription: `${rnd.pick(ADJ)} ${rnd.pick(NOUNS)} assembly`,
          changeReasonCode: (REASONS[i % REASONS.length] as [string, string])[0],
          drawingNumber: `DWG-${String(rnd.int(10000, 99999))}`,
          drawingTypeCode: rnd.pick(['ASM', 'PRT', 'SCH']),
          sourceType,
          sourceStatus,
          sourceSalesDocumentType: salesType,
          sourceNumber: `SRC-${String(rnd.int(100000, 999999))}`,
          sourceSequence: rnd.int(0, 100),
          creationDate: `2025-${String((i % 12) + 1).padStart(2, '0')}-${String(rnd.int(1, 28)).padStart(2, '0')}`,
          createdBy: rnd.pick(['ADMIN', 'JSMITH', 'KLEE']),
        });
        ecnNumbers.push(String(ecn['number']));
        const ecnId = String(ecn['id']);
        for (let k = 0; k < 2 + (i % 2); k++) {
          await insert('engChangeNoticeComment', cid, { engChangeNoticeId: ecnId, comment: `Reviewed ${rnd.pick(NOUNS)} tolerances, rev ${'ABC'[k] ?? 'D'}.`, date: `2025-06-${String(10 + k).padStart(2, '0')}`, userId: 'JSMITH' });
        }
        for (let k = 0; k < 3; k++) {
          const qty = rnd.int(1, 8);
          await insert('engChangeNoticeBOMLine', cid, {
            engChangeNoticeId: ecnId,
            type: 'Item',
            itemNumber: `CMP-${String(rnd.int(1000, 9999))}`,
            description: `${rnd.pick(ADJ)} ${rnd.pick(NOUNS)}`,
            quantityPer: qty,
            unitOfMeasureCode: 'PCS',
            newQuantityPer: k === 0 ? qty + 1 : null,
          });
        }
      }

      for (let e = 0; e < 4; e++) {
        const eco = await insert('engChangeOrder', cid, {
          description: `Implement ${ecnNumbers[e * 2 + 2] ?? ''} changes`,
          status: e === 3 ? 'Released' : 'New',
          engChangeNoticeNumber: ecnNumbers[e * 2 + 2] ?? null,
          changeDescription: Buffer.from(`Change order ${e + 1} for ${c.displayName}:\n- update drawings\n- rework ${rnd.pick(NOUNS)}\n`, 'utf8'),
        });
        const ecoId = String(eco['id']);
        const task = async (description: string, extra: Values): Promise<string> =>
          String((await insert('engChangeOrderTask', cid, { engChangeOrderId: ecoId, description, ...extra }))['id']);
        // Diamond: design → (machining, assembly) → release; plus an unlinked review task.
        const released = e === 3;
        const design = await task('Update design', { assignedTo: 'ADMIN', status: released ? 'Finished' : 'Not_x0020_Started' });
        const mach = await task('Machine prototype', { workCenterGroupCode: 'WC-MACH', status: released ? 'Active' : 'Not_x0020_Started' });
        const asm = await task('Assemble prototype', { assignedTo: 'JSMITH', status: released ? 'Active' : 'Not_x0020_Started' });
        const release = await task('Release drawings', { assignedTo: 'KLEE', workCenterGroupCode: null });
        await task('Quality review', { workCenterGroupCode: 'WC-QA', status: released ? 'Active' : 'Not_x0020_Started' });
        for (const [t, p] of [[mach, design], [asm, design], [release, mach], [release, asm]] as [string, string][]) {
          await insert('engChangeOrderTaskPredecessor', cid, { taskId: t, predecessorTaskId: p });
        }
      }
    }
  });
  const summary = [...counts.entries()].map(([set, n]) => `${n} ${set}`).join(', ');
  return { summary, companyIds };
}

/** Adds the demo users and their grants (idempotent). */
export async function seedDemoUsers(users: UserStore): Promise<void> {
  for (const u of DEMO_USERS) {
    await users.addUser(u.userId, u.email, u.defaultCompany);
    for (const [company, sets] of Object.entries(u.grants)) await users.grant(u.userId, company, sets);
  }
}
