// The benchmark data set in OUR schema: the same rows as the CAP peer's seed.js (same PRNG,
// mulberry32 with seed 20240601, the same draws in the same order, the same counts and value
// distributions), written with prepared INSERTs in one transaction into the tables createService
// made, plus the one company, the change reasons and user setups our computed properties look up,
// the number series, the CAP peer's secondary indexes where ours lack them, and ANALYZE.
//
// CAP stores free text where our model has enums; each value maps to one member, always the same:
//   sourceType               Sales -> Sales Order, Production -> Prod. Order, Engineering -> Item, Service -> ' '
//   sourceStatus             Open -> Planned, Released -> Released, Closed -> Finished
//   sourceSalesDocumentType  Order, Quote, Blanket Order -> the same member; Return Order -> Order
// Status values are the same members (ECN New/Pending Approval/Approved/Rejected/Closed, ECO
// New/Released/Finished, task Not Started/Active/Finished), stored encoded ('Pending_x0020_Approval').
// Columns CAP does not have: comment userId NULL; BOM line type Item; comment/BOM line
// lastModifiedDateTime = its ECN's; ECO lastModifiedDateTime = its creation day; task lineNo = 10000*k;
// _version = lastModifiedDateTime in microseconds. CAP's task assignedEmail is computed by ours from
// the assignee's user setup, so each of CAP's users gets a user setup with exactly that e-mail.
import path from 'node:path';
import fs from 'node:fs';
import { REPO } from './work-folder.mjs';

const dist = (p) => import(path.join(REPO, 'dist', 'src', p));

/** The company the benchmark data lives in (fixed, so URLs are stable between runs). */
export const BENCH_COMPANY = { id: '0b3e7c1a-5d2f-4a8e-9c61-20240601b001', name: 'BENCH', displayName: 'Benchmark Company' };

function mulberry32(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ECN_STATUS = [['New', 25], ['Pending Approval', 15], ['Approved', 35], ['Rejected', 10], ['Closed', 15]];
const ECO_STATUS = [['New', 45], ['Released', 40], ['Finished', 15]];
const TASK_STATUS = [['Not Started', 40], ['Active', 30], ['Finished', 30]];
const REASONS = [
  ['DESIGN', 'Design improvement'], ['COST', 'Cost reduction'], ['QUALITY', 'Quality issue'],
  ['SUPPLIER', 'Supplier change'], ['SAFETY', 'Safety requirement'], ['CUSTOMER', 'Customer request'],
  ['OBSOLETE', 'Component obsolescence'], ['REGULATORY', 'Regulatory compliance'],
];
const DRAWING_TYPES = ['ASM', 'PRT', 'SCH', 'WLD', 'ELE'];
const SOURCE_TYPES = ['Sales', 'Production', 'Engineering', 'Service'];
const SOURCE_STATUS = ['Open', 'Released', 'Closed'];
const SALES_DOC_TYPES = ['Order', 'Quote', 'Blanket Order', 'Return Order'];
const USERS = ['ADMIN', 'JSMITH', 'MJONES', 'KLEE', 'APATEL', 'RGARCIA', 'TNGUYEN', 'SBROWN', 'LMUELLER', 'OKIM'];
const ADJ = ['steel', 'aluminium', 'plastic', 'reinforced', 'compact', 'heavy-duty', 'precision', 'modular', 'sealed', 'coated'];
const NOUN = ['bracket', 'housing', 'shaft', 'gear', 'panel', 'valve', 'flange', 'bearing', 'cover', 'frame', 'spring', 'gasket'];
const VERBS = ['Updated', 'Reviewed', 'Checked', 'Revised', 'Approved', 'Questioned', 'Measured', 'Replaced'];
const UOM = ['PCS', 'EA', 'KG', 'M', 'L', 'BOX', 'SET'];
const WORK_CENTERS = ['WC-ASM', 'WC-MACH', 'WC-PAINT', 'WC-QA', 'WC-ENG', 'WC-WELD'];

/** CAP's free-text values → our enum member names (see the header). */
export const ENUM_MAPPING = {
  sourceType: { Sales: 'Sales Order', Production: 'Prod. Order', Engineering: 'Item', Service: ' ' },
  sourceStatus: { Open: 'Planned', Released: 'Released', Closed: 'Finished' },
  sourceSalesDocumentType: { Order: 'Order', Quote: 'Quote', 'Blanket Order': 'Blanket Order', 'Return Order': 'Order' },
};

/** The CAP seed's generators over one PRNG, in its draw order. */
function generators(seed) {
  const rnd = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const weighted = (pairs) => {
    const total = pairs.reduce((s, p) => s + p[1], 0);
    let r = rnd() * total;
    for (const [v, w] of pairs) if ((r -= w) < 0) return v;
    return pairs[pairs.length - 1][0];
  };
  const hex = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += Math.floor(rnd() * 16).toString(16);
    return s;
  };
  const uuid = () => {
    const variant = '89ab'[Math.floor(rnd() * 4)];
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
  };
  const phrase = () => `${pick(ADJ)} ${pick(NOUN)}`;
  const sentence = () => `${pick(VERBS)} ${phrase()} per drawing rev ${String.fromCharCode(65 + int(0, 7))}; ${pick(ADJ)} tolerance ${int(1, 50) / 100} mm.`;
  return { rnd, int, pick, weighted, uuid, phrase, sentence };
}

const pad = (n, w) => String(n).padStart(w, '0');
const BASE_DAY = Date.UTC(2020, 0, 1);
const DAY = 86400000;
const isoDate = (ms) => new Date(ms).toISOString().slice(0, 10);
const isoTs = (ms) => new Date(ms).toISOString();

/**
 * Creates `file` afresh with our schema and the CAP data set. Options: n ECNs (10,000), ecos (2,000),
 * comments and bomLines per ECN (5 and 10; fewer for the export bench: the draws of the rows that are
 * left out are skipped too, so ECN rows then differ from CAP's after the first), seed (20240601).
 */
export async function seedBenchDatabase(file, opts = {}) {
  const n = opts.n ?? 10000;
  const ecos = opts.ecos ?? 2000;
  const commentsPer = opts.comments ?? 5;
  const bomPer = opts.bomLines ?? 10;
  const t0 = Date.now();
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { createService } = await dist('service.js');
  const { defaultOptions } = await dist('config.js');
  const service = await createService(defaultOptions({ dbFile: file, logLevel: 'silent' }));
  const model = service.model;
  const raw = service.db.raw;
  const encode = (enumName, member) => {
    const e = model.entityTypeByName.get(enumName.type)?.propertyByName.get(enumName.prop)?.type;
    const m = e?.enumType?.members.find((x) => x.name === member);
    if (m === undefined) throw new Error(`no member '${member}' in the enum of ${enumName.type}.${enumName.prop}`);
    return m.encoded;
  };
  const enc = new Map();
  const E = (type, prop, member) => {
    const k = `${type}.${prop}.${member}`;
    let v = enc.get(k);
    if (v === undefined) enc.set(k, (v = encode({ type, prop }, member)));
    return v;
  };
  const company = BENCH_COMPANY.id;
  const insert = (table, cols) => {
    const stmt = raw.prepare(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    return (...values) => stmt.run(...values);
  };
  const version = (iso) => Date.parse(iso) * 1000;
  const created = '2020-01-01T00:00:00.000Z';
  const counts = { engChangeNotices: 0, engChangeNoticeComments: 0, engChangeNoticeBOMLines: 0, engChangeOrders: 0, engChangeOrderTasks: 0 };
  const g = generators(opts.seed ?? 20240601);

  raw.transaction(() => {
    insert('companies', ['id', 'name', 'displayName', '_version'])(company, BENCH_COMPANY.name, BENCH_COMPANY.displayName, 1);
    const reason = insert('changeReasons', ['id', '_companyId', 'code', 'description', 'lastModifiedDateTime', '_version']);
    REASONS.forEach(([code, description], i) => reason(`00000000-0000-4000-8000-1000000000${pad(i, 2)}`, company, code, description, created, version(created)));
    const user = insert('userSetups', ['id', '_companyId', 'userId', 'email', 'contactNo', 'lastModifiedDateTime', '_version']);
    USERS.forEach((u, i) => user(`00000000-0000-4000-8000-2000000000${pad(i, 2)}`, company, u, `${u.toLowerCase()}@example.com`, null, created, version(created)));
    const wc = insert('workCenterGroups', ['id', '_companyId', 'code', 'name', 'email', 'lastModifiedDateTime', '_version']);
    WORK_CENTERS.forEach((c, i) => wc(`00000000-0000-4000-8000-3000000000${pad(i, 2)}`, company, c, c, null, created, version(created)));
    const series = insert('numberSeries', ['id', '_companyId', 'code', 'description', 'prefix', 'width', 'lastNumber', 'lastModifiedDateTime', '_version']);
    series('00000000-0000-4000-8000-400000000001', company, 'ECN', 'ECN numbers', 'ECN', 6, n, created, version(created));
    series('00000000-0000-4000-8000-400000000002', company, 'ECO', 'ECO numbers', 'ECO', 6, 0, created, version(created));

    const ecn = insert('engChangeNotices', ['id', '_companyId', 'number', 'status', 'itemNumber', 'itemDescription', 'changeReasonCode', 'drawingNumber', 'drawingTypeCode', 'sourceType', 'sourceStatus', 'sourceSalesDocumentType', 'sourceNumber', 'sourceSequence', 'creationDate', 'createdBy', 'lastModifiedDateTime', '_version']);
    const comment = insert('engChangeNoticeComments', ['id', '_companyId', 'engChangeNoticeId', 'lineNo', 'date', 'comment', 'userId', 'lastModifiedDateTime', '_version']);
    const bom = insert('engChangeNoticeBOMLines', ['id', '_companyId', 'engChangeNoticeId', 'lineNo', 'type', 'itemNumber', 'description', 'quantityPer', 'unitOfMeasureCode', 'newQuantityPer', 'newItemNumber', 'lastModifiedDateTime', '_version']);
    const eco = insert('engChangeOrders', ['id', '_companyId', 'number', 'description', 'status', 'engChangeNoticeNumber', 'parentEngChangeOrderNo', 'changeDescription', 'lastModifiedDateTime', '_version']);
    const task = insert('engChangeOrderTasks', ['id', '_companyId', 'engChangeOrderId', 'lineNo', 'description', 'status', 'subEngChangeOrderNo', 'workCenterGroupCode', 'assignedTo', 'processedBy', 'lastModifiedDateTime', '_version']);
    const bomItem = E('engChangeNoticeBOMLine', 'type', 'Item');
    const { int, pick, weighted, uuid, phrase, sentence, rnd } = g;

    for (let i = 1; i <= n; i++) {
      // The draws below are in the order of the CAP seed's object literals.
      const id = uuid();
      const [reasonCode] = pick(REASONS);
      const createdMs = BASE_DAY + int(0, 1800) * DAY;
      const modifiedMs = createdMs + int(0, 90) * DAY + int(0, 86399) * 1000;
      const status = weighted(ECN_STATUS);
      const itemNumber = `ITM-${pad(int(1, 99999), 5)}`;
      const itemDescription = `${phrase()} assembly`;
      const drawingNumber = `DWG-${pad(int(1, 999999), 6)}`;
      const drawingTypeCode = pick(DRAWING_TYPES);
      const sourceType = ENUM_MAPPING.sourceType[pick(SOURCE_TYPES)];
      const sourceStatus = ENUM_MAPPING.sourceStatus[pick(SOURCE_STATUS)];
      const salesType = ENUM_MAPPING.sourceSalesDocumentType[pick(SALES_DOC_TYPES)];
      const sourceNumber = `SO-${pad(int(1, 999999), 6)}`;
      const sourceSequence = int(0, 100);
      const createdBy = pick(USERS);
      const modified = isoTs(modifiedMs);
      ecn(id, company, `ECN${pad(i, 6)}`, E('engChangeNotice', 'status', status), itemNumber, itemDescription, reasonCode, drawingNumber, drawingTypeCode,
        E('engChangeNotice', 'sourceType', sourceType), E('engChangeNotice', 'sourceStatus', sourceStatus), E('engChangeNotice', 'sourceSalesDocumentType', salesType),
        sourceNumber, sourceSequence, isoDate(createdMs), createdBy, modified, version(modified));
      counts.engChangeNotices++;
      for (let k = 1; k <= commentsPer; k++) {
        const cid = uuid();
        const date = isoDate(createdMs + int(0, 60) * DAY);
        comment(cid, company, id, k * 10000, date, sentence(), null, modified, version(modified));
        counts.engChangeNoticeComments++;
      }
      for (let k = 1; k <= bomPer; k++) {
        const bid = uuid();
        const item = `ITM-${pad(int(1, 99999), 5)}`;
        const description = phrase();
        const qty = int(1, 4000) / 100;
        bom(bid, company, id, k * 10000, bomItem, item, description, qty, pick(UOM), null, null, modified, version(modified));
        counts.engChangeNoticeBOMLines++;
      }
    }
    for (let i = 1; i <= ecos; i++) {
      const id = uuid();
      const number = `ECO${pad(i, 5)}`;
      const createdMs = BASE_DAY + int(0, 1800) * DAY;
      const nPara = int(2, 8);
      const paras = [];
      for (let p = 0; p < nPara; p++) paras.push(`${sentence()} ${sentence()} ${sentence()}`);
      const status = weighted(ECO_STATUS);
      const description = `Change ${phrase()} on line ${int(1, 20)}`;
      const ecoModified = isoTs(createdMs);
      eco(id, company, number, description, E('engChangeOrder', 'status', status), null, null, Buffer.from(paras.join('\n\n'), 'utf8'), ecoModified, version(ecoModified));
      counts.engChangeOrders++;
      for (let k = 1; k <= 5; k++) {
        const assignee = pick(USERS);
        const tid = uuid();
        const tstatus = weighted(TASK_STATUS);
        const workCenter = pick(WORK_CENTERS);
        const processedBy = rnd() < 0.5 ? pick(USERS) : null;
        const modified = isoTs(createdMs + int(0, 120) * DAY + int(0, 86399) * 1000);
        task(tid, company, id, k * 10000, null, E('engChangeOrderTask', 'status', tstatus), `${number}-${k}`, workCenter, assignee, processedBy, modified, version(modified));
        counts.engChangeOrderTasks++;
      }
    }
  })();
  // CAP's secondary indexes: FKs of comments, BOM lines and tasks, and engChangeNotices(number).
  // Ours has the FK indexes and a unique (company, number) index already; add what is missing.
  const indexes = raw.prepare("SELECT tbl_name AS t, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all();
  const has = (table, firstCols) => indexes.some((x) => x.t === table && new RegExp(`\\(${firstCols.map((c) => `"?${c}"?`).join(',\\s*')}[,)]`).test(x.sql));
  const added = [];
  for (const [table, cols] of [['engChangeNoticeComments', ['engChangeNoticeId']], ['engChangeNoticeBOMLines', ['engChangeNoticeId']], ['engChangeOrderTasks', ['engChangeOrderId']]]) {
    if (!has(table, cols)) {
      raw.exec(`CREATE INDEX "bench_${table}_${cols.join('_')}" ON "${table}" (${cols.map((c) => `"${c}"`).join(', ')})`);
      added.push(`${table}(${cols.join(', ')})`);
    }
  }
  if (!has('engChangeNotices', ['number']) && !has('engChangeNotices', ['_companyId', 'number'])) {
    raw.exec('CREATE INDEX "bench_engChangeNotices_number" ON "engChangeNotices" ("number")');
    added.push('engChangeNotices(number)');
  }
  raw.exec('ANALYZE');
  raw.pragma('wal_checkpoint(TRUNCATE)');
  await service.close();
  return { file, seconds: (Date.now() - t0) / 1000, counts, addedIndexes: added, company: BENCH_COMPANY };
}
