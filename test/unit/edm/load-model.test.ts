import fs from 'node:fs';
import { DEFAULT_LIMITS } from '../../../src/edm/service-limits.js';
import os from 'node:os';
import path from 'node:path';
import { loadModel, ModelError, type ModelProblem } from '../../../src/edm/load-model.js';
import type { EntityFile, EnumFile, PropertyFile } from '../../../src/edm/metadata-format.js';
import { DEFAULT_CHANGE_WEBHOOKS, type EntityType } from '../../../src/edm/model.js';
import { FIXTURE_METADATA as METADATA_DIR, loadTestModel } from '../../fixtures/model.js';

describe('the repository model', () => {
  const model = loadTestModel();
  const type = (name: string): EntityType => {
    const found = model.entityTypeByName.get(name);
    if (!found) throw new Error(`no entity type ${name}`);
    return found;
  };
  const ecn = type('engChangeNotice');
  const task = type('engChangeOrderTask');

  test('has the service settings, all types, and the company root', () => {
    // The limits service.json leaves out take their defaults (edm/service-limits.ts).
    expect(model.service).toEqual({ ...DEFAULT_LIMITS, namespace: 'Microsoft.NAV', containerName: 'NAV', serviceRoot: '/api/v2.0', pageSize: 20000, maxPageSize: 20000, maxBodyBytes: 4194304, maxExpandDepth: 3, maxTop: 1000000, webhooks: DEFAULT_CHANGE_WEBHOOKS });
    expect(model.entityTypes).toHaveLength(14);
    expect(model.enumTypes.map((e) => e.name)).toEqual(['bomLineType', 'ecnSourceSalesDocumentType', 'ecnSourceStatus', 'ecnSourceType', 'ecnStatus', 'ecoStatus', 'ecoTaskStatus', 'eventSubscriptionState', 'eventSubscriptionType']);
    expect(model.company.name).toBe('company');
    expect(model.company.scope).toBe('global');
    expect(model.entityTypeBySet.get('engChangeNotices')).toBe(ecn);
    expect(model.numberSeries).toEqual([{ code: 'ECN', prefix: 'ECN', width: 6 }, { code: 'ECO', prefix: 'ECO', width: 6 }]);
    expect(ecn.source).toBe('metadata/entities/engChangeNotice.json');
    expect(ecn.qualifiedName).toBe('Microsoft.NAV.engChangeNotice');
  });

  test('encodes enum member names and keeps values as positions', () => {
    const sourceType = model.enumTypeByName.get('ecnSourceType');
    expect(sourceType?.members.map((m) => [m.name, m.encoded, m.value])).toEqual([
      [' ', '_x0020_', 0], ['Prod. Order', 'Prod_x002E__x0020_Order', 1], ['Sales Quote', 'Sales_x0020_Quote', 2], ['Sales Order', 'Sales_x0020_Order', 3], ['Item', 'Item', 4],
    ]);
    expect(sourceType?.memberByEncoded.get('Prod_x002E__x0020_Order')?.name).toBe('Prod. Order');
    expect(ecn.propertyByName.get('sourceType')?.type).toEqual({ kind: 'enum', enumType: sourceType });
  });

  test('stores enum defaults by encoded name, and other defaults as written', () => {
    expect(ecn.propertyByName.get('sourceType')?.default).toEqual({ kind: 'value', value: '_x0020_' });
    expect(task.propertyByName.get('status')?.default).toEqual({ kind: 'value', value: 'Not_x0020_Started' });
    expect(ecn.propertyByName.get('number')?.default).toEqual({ kind: 'numberSeries', series: 'ECN' });
    expect(ecn.propertyByName.get('sourceSequence')?.default).toEqual({ kind: 'value', value: 0 });
    expect(task.propertyByName.get('lineNo')?.default).toEqual({ kind: 'nextLineNo', groupBy: 'engChangeOrderId' });
  });

  test('derives required, writable and storage', () => {
    const required = (t: EntityType): string[] => t.properties.filter((p) => p.required).map((p) => p.name);
    expect(required(ecn)).toEqual([]);
    expect(required(type('company'))).toEqual(['name']);
    expect(required(type('engChangeNoticeComment'))).toEqual(['engChangeNoticeId']);
    expect(required(type('engChangeOrderTaskPredecessor'))).toEqual(['taskId', 'predecessorTaskId']);
    expect(required(type('numberSeries'))).toEqual(['code', 'prefix']);
    const described = ecn.propertyByName.get('changeReasonDescription');
    expect(described?.writable).toBe('never');
    expect(described?.storage).toEqual({ kind: 'computed', computed: { kind: 'lookup', path: ['changeReason', 'description'] } });
    const modified = ecn.propertyByName.get('lastModifiedDateTime');
    expect([modified?.autoModified, modified?.writable, modified?.nullable]).toEqual([true, 'never', false]);
    expect(type('engChangeOrder').propertyByName.get('changeDescription')?.storage).toEqual({ kind: 'media', contentType: 'text/plain', maxBytes: 1048576 });
    expect(ecn.key.name).toBe('id');
    expect(ecn.key.writable).toBe('create');
    expect(type('engChangeNoticeBOMLine').propertyByName.get('quantityPer')).toMatchObject({ precision: 18, scale: 5, writable: 'never' });
  });

  test('resolves navigations to the target types, with referential flags', () => {
    const comments = ecn.navigationByName.get('engChangeNoticeComments');
    const comment = type('engChangeNoticeComment');
    expect(comments).toMatchObject({ collection: true, containsTarget: true, referential: false, checkOnWrite: false, partner: 'engChangeNotice' });
    expect(comments?.target).toBe(comment);
    expect(comments?.source).toBe(ecn);
    const back = comment.navigationByName.get('engChangeNotice');
    expect(back).toMatchObject({ referential: true, checkOnWrite: true, onTargetDelete: 'cascade', joins: [{ sourceProperty: 'engChangeNoticeId', targetProperty: 'id' }] });
    expect(back?.target).toBe(ecn);
    expect(ecn.navigationByName.get('changeReason')).toMatchObject({ referential: false, checkOnWrite: true, onTargetDelete: 'restrict' });
    expect(task.navigationByName.get('assignedUser')).toMatchObject({ referential: false, checkOnWrite: false });
    const predecessor = type('engChangeOrderTaskPredecessor').navigationByName.get('predecessorTask');
    expect(predecessor).toMatchObject({ referential: true, checkOnWrite: true, onTargetDelete: 'cascade' });
    expect(predecessor?.target).toBe(task);
  });

  test('has entity-level settings and bound actions', () => {
    const lines = type('engChangeNoticeBOMLine');
    expect(lines.capabilities).toEqual({ insertable: false, updatable: true, deletable: false, deleteRequiresIfMatch: false });
    expect(ecn.permissions).toEqual({ read: 'ECN-READ', write: 'ECN-WRITE' });
    expect(ecn.indexes.map((props) => props.map((p) => p.name))).toEqual([['status']]);
    expect(task.permissions).toEqual({ read: 'TASK-READ', write: 'TASK-WRITE' });
    expect(type('contact').permissions).toBeUndefined();
    expect(model.company.capabilities).toEqual({ insertable: false, updatable: false, deletable: false, deleteRequiresIfMatch: false });
    const action = ecn.actionByQualifiedName.get('Microsoft.NAV.createEngChangeOrder');
    expect(action?.returnType).toBe(type('engChangeOrder'));
    const global = [model.company, model.eventTypes?.definition, model.eventTypes?.subscription];
    for (const t of model.entityTypes) {
      expect(t.key).toBe(t.properties[0]);
      if (t !== model.company && t !== model.eventTypes?.definition) expect(t.properties.at(-1)?.name).toBe('lastModifiedDateTime');
      expect(t.scope).toBe(global.includes(t) ? 'global' : 'company');
    }
  });

  test('is read-only', () => {
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(ecn.properties)).toBe(true);
    expect(Object.isFrozen(ecn.navigations[0])).toBe(true);
    expect(() => (ecn.properties as Property[]).push(ecn.key)).toThrow(TypeError);
  });
});

type Property = EntityType['properties'][number];

describe('a broken model', () => {
  let workDir: string;
  beforeAll(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'load-model-'));
  });
  afterAll(() => {
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  /** A fresh copy of metadata/ to break. */
  let copies = 0;
  function copyModel(): string {
    const dir = path.join(workDir, `copy${++copies}`, 'metadata');
    fs.cpSync(METADATA_DIR, dir, { recursive: true });
    return dir;
  }

  function editEntity(dir: string, name: string, edit: (doc: EntityFile) => EntityFile): void {
    const file = path.join(dir, 'entities', `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(edit(JSON.parse(fs.readFileSync(file, 'utf8')) as EntityFile), null, 2));
  }

  function withProperty(doc: EntityFile, name: string, change: (property: PropertyFile) => PropertyFile): EntityFile {
    return { ...doc, properties: doc.properties.map((p) => (p.name === name ? change(p) : p)) };
  }

  function problemsOf(dir: string): readonly ModelProblem[] {
    try {
      loadModel(dir);
    } catch (error) {
      expect(error).toBeInstanceOf(ModelError);
      return (error as ModelError).problems;
    }
    throw new Error('the broken model loaded');
  }

  /** Asserts a problem at `file` (relative to the metadata dir) and `pointer`, with a message and a fix. */
  function expectProblem(dir: string, file: string, pointer: string): ModelProblem {
    const problems = problemsOf(dir);
    const found = problems.find((p) => p.file === path.join(dir, file) && p.pointer === pointer);
    if (!found) throw new Error(`no problem at ${file} ${pointer}; got:\n${problems.map((p) => `${p.file} ${p.pointer} ${p.message}`).join('\n')}`);
    expect(found.message.length).toBeGreaterThan(10);
    expect(found.fix.length).toBeGreaterThan(5);
    return found;
  }

  test('an unknown property type', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => withProperty(doc, 'status', (p) => ({ ...p, type: 'ecnStatuss' })));
    const problem = expectProblem(dir, 'entities/engChangeNotice.json', '/properties/2/type');
    expect(problem.message).toContain('Unknown type "ecnStatuss"');
    expect(problem.fix).toContain('"ecnStatus"');
  });

  test('an unknown navigation target', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => ({ ...doc, navigationProperties: (doc.navigationProperties ?? []).map((n) => (n.name === 'changeReason' ? { ...n, target: 'changeReasn' } : n)) }));
    const problem = expectProblem(dir, 'entities/engChangeNotice.json', '/navigationProperties/2/target');
    expect(problem.message).toContain('changeReasn');
    expect(problem.fix).toContain('"changeReason"');
  });

  test('a join naming a missing property', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeOrderTask', (doc) => ({
      ...doc,
      navigationProperties: (doc.navigationProperties ?? []).map((n) => (n.name === 'workCenterGroup' ? { ...n, joins: [{ source: 'workCenterGroupCode', target: 'cod' }] } : n)),
    }));
    const problem = expectProblem(dir, 'entities/engChangeOrderTask.json', '/navigationProperties/3/joins/0/target');
    expect(problem.message).toContain('"cod" is not a property of workCenterGroup');
    expect(problem.fix).toContain('"code"');
  });

  test('a duplicate property name', () => {
    const dir = copyModel();
    editEntity(dir, 'contact', (doc) => ({ ...doc, properties: [...doc.properties, { name: 'email', type: 'Edm.String' }] }));
    const problem = expectProblem(dir, 'entities/contact.json', '/properties/5/name');
    expect(problem.message).toContain('"email" is already used');
  });

  test('a default kind that does not fit the type', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => withProperty(doc, 'creationDate', (p) => ({ ...p, default: { kind: 'now' } })));
    const problem = expectProblem(dir, 'entities/engChangeNotice.json', '/properties/16/default/kind');
    expect(problem.message).toContain('"now" cannot fill a property of type Edm.Date');
    expect(problem.fix).toContain('Edm.DateTimeOffset');
  });

  test('an unknown default kind', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => withProperty(doc, 'creationDate', (p) => ({ ...p, default: { kind: 'tomorrow' } as unknown as PropertyFile['default'] })));
    const problem = expectProblem(dir, 'entities/engChangeNotice.json', '/properties/16/default/kind');
    expect(problem.message).toContain('"tomorrow"');
    expect(problem.fix).toContain('today');
  });

  test('an enum default that is not a member, and a number series that does not exist', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => withProperty(withProperty(doc, 'status', (p) => ({ ...p, default: { kind: 'value', value: 'Pending_x0020_Approval' } })), 'number', (p) => ({ ...p, default: { kind: 'numberSeries', series: 'ECX' } })));
    expect(expectProblem(dir, 'entities/engChangeNotice.json', '/properties/2/default/value').fix).toContain('"Pending Approval"');
    expect(expectProblem(dir, 'entities/engChangeNotice.json', '/properties/1/default/series').fix).toContain('"ECN"');
  });

  test('an unknown JSON member (a typo)', () => {
    const dir = copyModel();
    editEntity(dir, 'contact', (doc) => withProperty(doc, 'number', (p) => ({ ...p, nulable: false }) as unknown as PropertyFile));
    const problem = expectProblem(dir, 'entities/contact.json', '/properties/1/nulable');
    expect(problem.message).toContain('Unknown member "nulable"');
    expect(problem.fix).toContain('"nullable"');
    expect(problem.fix).toContain('remove it');
  });

  test('a JSON syntax error names the line and column', () => {
    const dir = copyModel();
    const file = path.join(dir, 'enums', 'ecoStatus.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"New",', '"New",,'));
    const problem = expectProblem(dir, 'enums/ecoStatus.json', '');
    expect(problem.message).toMatch(/JSON syntax error at line 5, column \d+/);
  });

  test('a syntax error without a position from V8 still gets one', () => {
    const dir = copyModel();
    fs.writeFileSync(path.join(dir, 'enums', 'ecoStatus.json'), '{\n  "name": ecoStatus\n}\n');
    const problem = expectProblem(dir, 'enums/ecoStatus.json', '');
    expect(problem.message).toContain('line 2, column 11');
  });

  test('a file name that differs from the declared name', () => {
    const dir = copyModel();
    fs.renameSync(path.join(dir, 'entities', 'contact.json'), path.join(dir, 'entities', 'contacts.json'));
    const problem = expectProblem(dir, 'entities/contacts.json', '/name');
    expect(problem.fix).toContain('contact.json');
  });

  test('a partner that does not point back, and a bad computed path', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNoticeComment', (doc) => ({ ...doc, navigationProperties: (doc.navigationProperties ?? []).map((n) => ({ ...n, partner: 'engChangeNoticeBOMLines' })) }));
    editEntity(dir, 'engChangeOrderTask', (doc) => withProperty(doc, 'assignedEmail', (p) => ({ ...p, computed: { kind: 'firstNonEmpty', paths: [['assignedUser', 'mail']], fallback: '' } })));
    expectProblem(dir, 'entities/engChangeNoticeComment.json', '/navigationProperties/0/partner');
    expect(expectProblem(dir, 'entities/engChangeOrderTask.json', '/properties/9/computed/paths/0/1').fix).toContain('"email"');
  });

  test('reports every problem of every file at once, one line each', () => {
    const dir = copyModel();
    editEntity(dir, 'contact', (doc) => withProperty(doc, 'number', (p) => ({ ...p, maxLenght: 20 }) as unknown as PropertyFile));
    const enumFile = path.join(dir, 'enums', 'ecoStatus.json');
    const doc = JSON.parse(fs.readFileSync(enumFile, 'utf8')) as EnumFile;
    fs.writeFileSync(enumFile, JSON.stringify({ ...doc, members: [] }));
    let error: unknown;
    try {
      loadModel(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ModelError);
    const { problems, message } = error as ModelError;
    expect(problems.map((p) => [path.relative(dir, p.file), p.pointer])).toEqual([
      ['enums/ecoStatus.json', '/members'],
      ['entities/contact.json', '/properties/1/maxLenght'],
    ]);
    const lines = message.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`${path.relative(process.cwd(), path.join(dir, 'entities/contact.json'))}: /properties/1/maxLenght: ${problems[1]?.message} Fix: ${problems[1]?.fix}`);
    expect(message).not.toMatch(/\bat .*\.ts:\d+/);
  });

  function editJson(dir: string, file: string, edit: (doc: Record<string, unknown>) => Record<string, unknown>): void {
    const at = path.join(dir, file);
    fs.writeFileSync(at, JSON.stringify(edit(JSON.parse(fs.readFileSync(at, 'utf8')) as Record<string, unknown>), null, 2));
  }

  test('alternate keys: an unknown or nullable property, and one that repeats the key', () => {
    const dir = copyModel();
    editEntity(dir, 'contact', (doc) => ({ ...doc, alternateKeys: [['numbr'], ['email'], ['id']] }));
    expect(expectProblem(dir, 'entities/contact.json', '/alternateKeys/0/0').fix).toContain('"number"');
    expect(expectProblem(dir, 'entities/contact.json', '/alternateKeys/1/0').message).toContain('non-nullable');
    expect(expectProblem(dir, 'entities/contact.json', '/alternateKeys/2').message).toContain('repeats the key');
  });

  test('indexes: an unknown property and a computed one are refused with the stored properties to choose from', () => {
    const dir = copyModel();
    editEntity(dir, 'engChangeNotice', (doc) => ({ ...doc, indexes: [['statuss'], ['number', 'bomExists']] }));
    expect(expectProblem(dir, 'entities/engChangeNotice.json', '/indexes/0/0').fix).toContain('"status"');
    expect(expectProblem(dir, 'entities/engChangeNotice.json', '/indexes/1/1').message).toContain('not a stored property');
  });

  test('row scope: only on global types, with a GUID company property, and no navigation may lead into the type', () => {
    const dir = copyModel();
    editEntity(dir, 'contact', (doc) => ({ ...doc, rowScope: { companyProperty: 'number', permission: 'EVENTS' } }));
    expect(expectProblem(dir, 'entities/contact.json', '/rowScope').message).toContain('global types only');
    expect(expectProblem(dir, 'entities/contact.json', '/rowScope/companyProperty').message).toContain('Edm.Guid');
    expect(expectProblem(dir, 'entities/userSetup.json', '/navigationProperties/0/target').message).toContain('contact has a row scope');
  });

  test('events: an unknown entity type, a key field that is not in the payload, a reserved field, a repeated version, a wrong file name', () => {
    const dir = copyModel();
    editJson(dir, 'events/EngChangeOrderTaskActivated.json', (doc) => ({ ...doc, entityType: 'engChangeOrderTsk', keyField: 'taskId', payload: [{ name: 'url', type: 'Text' }] }));
    fs.writeFileSync(path.join(dir, 'events', 'Other.json'), fs.readFileSync(path.join(dir, 'events', 'EngChangeOrderTaskActivated.json')));
    expect(expectProblem(dir, 'events/EngChangeOrderTaskActivated.json', '/entityType').fix).toContain('"engChangeOrderTask"');
    expect(expectProblem(dir, 'events/EngChangeOrderTaskActivated.json', '/keyField').message).toContain('"taskId" is not a payload field');
    expect(expectProblem(dir, 'events/EngChangeOrderTaskActivated.json', '/payload/0/name').message).toContain('reserved');
    expect(expectProblem(dir, 'events/Other.json', '/name').fix).toContain('EngChangeOrderTaskActivated.json');
    expect(expectProblem(dir, 'events/Other.json', '/version').message).toContain('already declared');
  });

  test('events without an app identity; an event type named in service.json that lacks a property', () => {
    const dir = copyModel();
    editJson(dir, 'service.json', (doc) => {
      const { app: _app, ...rest } = doc;
      return rest;
    });
    editEntity(dir, 'externalEventSubscription', (doc) => ({ ...doc, properties: doc.properties.filter((p) => p.name !== 'notificationUrl') }));
    expect(expectProblem(dir, 'service.json', '').fix).toContain('"app"');
    expect(expectProblem(dir, 'entities/externalEventSubscription.json', '/properties').message).toContain('"notificationUrl"');
  });

  test('an event file that breaks its schema names the member', () => {
    const dir = copyModel();
    editJson(dir, 'events/EngChangeOrderTaskActivated.json', (doc) => ({ ...doc, payload: [{ name: 'engChangeOrderTaskId', type: 'Uuid' }] }));
    expect(expectProblem(dir, 'events/EngChangeOrderTaskActivated.json', '/payload/0/type').fix).toContain('Guid');
  });

  test('a missing metadata folder', () => {
    expect(() => loadModel(path.join(workDir, 'nowhere'))).toThrow(ModelError);
  });
});
