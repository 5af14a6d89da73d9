import fs from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';
import { toCsdlXml } from '../../../src/serialize/csdl-xml.js';
import { loadTestModel, REPO_ROOT, SHIPPED_METADATA } from '../../fixtures/model.js';
import { loadModel } from '../../../src/edm/load-model.js';

/** The OASIS CSDL XML schemas, vendored in conformance/oasis/ (edmx.xsd imports edm.xsd beside it). */
const OASIS = path.join(REPO_ROOT, 'conformance', 'oasis');
const SCHEMA = { fileName: 'edmx.xsd', contents: fs.readFileSync(path.join(OASIS, 'edmx.xsd'), 'utf8') };
const PRELOAD = { fileName: 'edm.xsd', contents: fs.readFileSync(path.join(OASIS, 'edm.xsd'), 'utf8') };

/** Element names that may repeat, parsed as arrays whatever their count. */
const REPEATING = new Set(['EnumType', 'Member', 'EntityType', 'Property', 'NavigationProperty', 'Annotation', 'Action', 'EntitySet', 'NavigationPropertyBinding', 'ReferentialConstraint', 'PropertyRef', 'String']);

/** A parsed element: attributes as `@_Name`, children by element name. */
interface Element {
  readonly [name: string]: string | Element | readonly Element[] | undefined;
}

/** Validates against edmx.xsd with libxml2 compiled to WebAssembly (xmllint-wasm): no system package needed. */
async function validate(xml: string, name: string): Promise<{ valid: boolean; output: string }> {
  const result = await validateXML({ xml: { fileName: name, contents: xml }, schema: SCHEMA, preload: PRELOAD });
  return { valid: result.valid, output: result.rawOutput };
}

const list = (value: Element[string]): readonly Element[] => (Array.isArray(value) ? value : value === undefined || typeof value === 'string' ? [] : [value as Element]);
const named = (elements: Element[string], name: string): Element => {
  const found = list(elements).find((element) => element['@_Name'] === name);
  if (!found) throw new Error(`no element named ${name}`);
  return found;
};

test('the shipped model (metadata/: subscriptions, webhookSupportedResources) is valid against the OASIS edmx.xsd too', async () => {
  const xml = toCsdlXml(loadModel(SHIPPED_METADATA));
  expect(xml).toContain('<EntitySet Name="subscriptions" EntityType="Microsoft.NAV.subscription"');
  expect(xml).toContain('<EntitySet Name="webhookSupportedResources" EntityType="Microsoft.NAV.webhookSupportedResource"');
  const { valid, output } = await validate(xml, 'shipped-metadata.xml');
  expect(output).toContain('validates');
  expect(valid).toBe(true);
});

describe('CSDL XML of the repository model', () => {
  const xml = toCsdlXml(loadTestModel());
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => REPEATING.has(name) }).parse(xml) as Element;
  const edmx = parsed['edmx:Edmx'] as Element;
  const schema = (edmx['edmx:DataServices'] as Element)['Schema'] as Element;
  const entityType = (name: string): Element => named(schema['EntityType'], name);
  const container = schema['EntityContainer'] as Element;

  test('is valid against the OASIS edmx.xsd (xmllint-wasm)', async () => {
    const { valid, output } = await validate(xml, 'metadata.xml');
    expect(output).toContain('validates');
    expect(valid).toBe(true);
  });

  test('negative control: the schema rejects a broken document', async () => {
    const broken = xml.replace('<EntityType Name="engChangeNotice">', '<EntityType Name="eng ChangeNotice">');
    expect(broken).not.toBe(xml);
    const { valid, output } = await validate(broken, 'broken.xml');
    expect(valid).toBe(false);
    expect(output).toContain('eng ChangeNotice');
  });

  test('has the declaration, version, Core, Aggregation and Capabilities references and namespace', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
    expect(edmx['@_Version']).toBe('4.0');
    const includes = list(edmx['edmx:Reference']).map((r) => r['edmx:Include'] as Element);
    expect(includes.map((i) => [i['@_Namespace'], i['@_Alias']])).toEqual([['Org.OData.Core.V1', 'Core'], ['Org.OData.Aggregation.V1', 'Aggregation'], ['Org.OData.Capabilities.V1', 'Capabilities']]);
    expect(schema['@_Namespace']).toBe('Microsoft.NAV');
    expect(container['@_Name']).toBe('NAV');
  });

  test('the container declares what $batch supports (Capabilities.BatchSupport)', () => {
    const annotation = list(container['Annotation'])[0] as Element;
    expect(annotation['@_Term']).toBe('Capabilities.BatchSupport');
    const values = list((annotation['Record'] as Element)['PropertyValue']).map((v) => [v['@_Property'], v['@_Bool'] ?? (v['Collection'] as Element)['String']]);
    expect(values).toEqual([
      ['Supported', 'true'],
      ['ContinueOnErrorSupported', 'true'],
      ['ReferencesInRequestBodiesSupported', 'true'],
      ['ReferencesAcrossChangeSetsSupported', 'true'],
      ['EtagReferencesSupported', 'true'],
      ['RequestDependencyConditionsSupported', 'false'],
      ['SupportedFormats', ['multipart/mixed', 'application/json']],
    ]);
  });

  test('writes enum members by encoded name with their values', () => {
    const members = list(named(schema['EnumType'], 'ecnSourceType')['Member']).map((m) => [m['@_Name'], m['@_Value']]);
    expect(members).toEqual([['_x0020_', '0'], ['Prod_x002E__x0020_Order', '1'], ['Sales_x0020_Quote', '2'], ['Sales_x0020_Order', '3'], ['Item', '4']]);
    expect(list(named(schema['EnumType'], 'ecoTaskStatus')['Member'])[0]?.['@_Name']).toBe('Not_x0020_Started');
  });

  test('declares the bound action with its binding parameter and return type', () => {
    const action = named(schema['Action'], 'createEngChangeOrder');
    expect(action['@_IsBound']).toBe('true');
    expect((action['Parameter'] as Element)['@_Type']).toBe('Microsoft.NAV.engChangeNotice');
    expect((action['ReturnType'] as Element)['@_Type']).toBe('Microsoft.NAV.engChangeOrder');
  });

  test('marks containment, and puts referential constraints only on referential navigations', () => {
    const comments = named(entityType('engChangeNotice')['NavigationProperty'], 'engChangeNoticeComments');
    expect(comments).toMatchObject({ '@_Type': 'Collection(Microsoft.NAV.engChangeNoticeComment)', '@_ContainsTarget': 'true', '@_Partner': 'engChangeNotice' });
    expect(comments['ReferentialConstraint']).toBeUndefined();
    const back = named(entityType('engChangeNoticeComment')['NavigationProperty'], 'engChangeNotice');
    expect(back['@_Nullable']).toBe('false');
    expect(list(back['ReferentialConstraint'])).toEqual([{ '@_Property': 'engChangeNoticeId', '@_ReferencedProperty': 'id' }]);
    const reason = named(entityType('engChangeNotice')['NavigationProperty'], 'changeReason');
    expect(reason['ReferentialConstraint']).toBeUndefined();
    expect(reason['@_Nullable']).toBeUndefined();
    for (const type of list(schema['EntityType'])) {
      for (const navigation of list(type['NavigationProperty'])) {
        if (String(navigation['@_Type']).startsWith('Collection(')) expect(navigation['ReferentialConstraint']).toBeUndefined();
      }
    }
  });

  test('binds non-containment navigations to their target sets', () => {
    const tasks = named(container['EntitySet'], 'engChangeOrderTasks');
    expect(list(tasks['NavigationPropertyBinding'])).toContainEqual({ '@_Path': 'engChangeOrder', '@_Target': 'engChangeOrders' });
    expect(list(tasks['NavigationPropertyBinding']).map((b) => b['@_Path'])).not.toContain('predecessors');
    expect(list(container['EntitySet'])).toHaveLength(15);
  });

  test('declares Aggregation.ApplySupported on every entity set (its transformations; no rollup)', () => {
    for (const set of list(container['EntitySet'])) {
      const [annotation] = list(set['Annotation']);
      expect(annotation?.['@_Term']).toBe('Aggregation.ApplySupported');
      const values = list((annotation?.['Record'] as Element)['PropertyValue']);
      const transformations = values.find((v) => v['@_Property'] === 'Transformations')?.['Collection'] as Element;
      expect(list(transformations['String'])).toEqual(['aggregate', 'groupby', 'filter', 'orderby', 'top', 'skip', 'identity', 'concat']);
      expect(values.find((v) => v['@_Property'] === 'Rollup')?.['@_EnumMember']).toBe('Aggregation.RollupType/None');
    }
  });

  test('gives the company type one containment navigation per company-scoped set', () => {
    const navigations = list(entityType('company')['NavigationProperty']);
    const model = loadTestModel();
    const scoped = model.entityTypes.filter((t) => t.scope === 'company');
    expect(navigations.map((n) => n['@_Name'])).toEqual(scoped.map((t) => t.entitySet));
    for (const navigation of navigations) {
      expect(navigation['@_ContainsTarget']).toBe('true');
      expect(navigation['@_Type']).toBe(`Collection(${model.entityTypeBySet.get(String(navigation['@_Name']))?.qualifiedName})`);
    }
  });

  test('annotates read-only, create-only and media properties, but not the key', () => {
    const terms = (type: string, property: string): unknown[] => list(named(entityType(type)['Property'], property)['Annotation']).map((a) => [a['@_Term'], a['@_Bool'] ?? a['@_EnumMember'] ?? a['Collection'] ?? a['@_String']]);
    expect(terms('engChangeOrderTask', 'assignedEmail')).toEqual(expect.arrayContaining([['Core.Computed', 'true'], ['Core.Permissions', 'Core.Permission/Read']]));
    expect(terms('engChangeNotice', 'lastModifiedDateTime')).toEqual([['Core.Computed', 'true'], ['Core.Permissions', 'Core.Permission/Read']]);
    expect(terms('engChangeNoticeComment', 'engChangeNoticeId')).toEqual([['Core.Immutable', 'true']]);
    expect(terms('engChangeOrder', 'changeDescription')).toContainEqual(['Core.AcceptableMediaTypes', { String: ['text/plain'] }]);
    expect(terms('engChangeNotice', 'id').map((t) => (t as string[])[0])).not.toContain('Core.Computed');
    expect(terms('engChangeNotice', 'status')).toEqual([]);
    const number = named(entityType('engChangeNotice')['Property'], 'number');
    expect([number['@_Type'], number['@_Nullable'], number['@_MaxLength']]).toEqual(['Edm.String', 'false', '20']);
    expect(named(entityType('engChangeNoticeBOMLine')['Property'], 'quantityPer')).toMatchObject({ '@_Precision': '18', '@_Scale': '5' });
  });

  test('is deterministic', () => {
    expect(toCsdlXml(loadTestModel())).toBe(xml);
  });
});
