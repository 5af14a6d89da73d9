/** The CSDL JSON document's shape; its validation against the OASIS csdl.schema.json is in test/conformance/csdl. */
import { toCsdlJson } from '../../../src/serialize/csdl-json.js';
import { loadTestModel } from '../../fixtures/model.js';

/** A JSON object of the CSDL document, for reading members in the spot checks. */
type JsonObject = { readonly [member: string]: unknown };

const member = (value: unknown, name: string): JsonObject => {
  const found = (value as JsonObject)[name];
  if (typeof found !== 'object' || found === null) throw new Error(`no object member ${name}`);
  return found as JsonObject;
};

describe('CSDL JSON of the repository model', () => {
  const document = toCsdlJson(loadTestModel());
  const schemaObject = member(document, 'Microsoft.NAV');

  test('has the header members', () => {
    expect(Object.keys(document).slice(0, 3)).toEqual(['$Version', '$EntityContainer', '$Reference']);
    expect(member(document, '$Reference')).toEqual({
      'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json': { $Include: [{ $Namespace: 'Org.OData.Core.V1', $Alias: 'Core' }] },
      'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.json': { $Include: [{ $Namespace: 'Org.OData.Aggregation.V1', $Alias: 'Aggregation' }] },
      'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.json': { $Include: [{ $Namespace: 'Org.OData.Capabilities.V1', $Alias: 'Capabilities' }] },
    });
    expect((document as JsonObject)['$EntityContainer']).toBe('Microsoft.NAV.NAV');
  });

  test('the container declares what $batch supports (Capabilities.BatchSupport)', () => {
    expect(member(schemaObject, 'NAV')['@Capabilities.BatchSupport']).toEqual({
      Supported: true,
      ContinueOnErrorSupported: true,
      ReferencesInRequestBodiesSupported: true,
      ReferencesAcrossChangeSetsSupported: true,
      EtagReferencesSupported: true,
      RequestDependencyConditionsSupported: false,
      SupportedFormats: ['multipart/mixed', 'application/json'],
    });
  });

  test('writes enum types by encoded member name', () => {
    expect(member(schemaObject, 'ecnSourceType')).toMatchObject({ $Kind: 'EnumType', _x0020_: 0, Prod_x002E__x0020_Order: 1, Item: 4 });
  });

  test('writes properties with JSON defaults ($Nullable false, facets, annotations)', () => {
    const ecn = member(schemaObject, 'engChangeNotice');
    expect(ecn['$Kind']).toBe('EntityType');
    expect(ecn['$Key']).toEqual(['id']);
    expect(ecn['number']).toEqual({ $Type: 'Edm.String', $MaxLength: 20 });
    expect(ecn['drawingNumber']).toEqual({ $Type: 'Edm.String', $Nullable: true, $MaxLength: 30 });
    expect(ecn['status']).toEqual({ $Type: 'Microsoft.NAV.ecnStatus' });
    expect(member(member(schemaObject, 'engChangeOrderTask'), 'assignedEmail')).toMatchObject({ '@Core.Computed': true, '@Core.Permissions': 'Read' });
    expect(member(member(schemaObject, 'engChangeOrder'), 'changeDescription')).toMatchObject({ $Type: 'Edm.Stream', '@Core.AcceptableMediaTypes': ['text/plain'] });
    expect(Object.keys(ecn).slice(2, 5)).toEqual(['id', 'number', 'status']);
  });

  test('writes navigations, containment and referential constraints', () => {
    expect(member(member(schemaObject, 'engChangeNotice'), 'engChangeNoticeComments')).toEqual({
      $Kind: 'NavigationProperty', $Type: 'Microsoft.NAV.engChangeNoticeComment', $Collection: true, $Partner: 'engChangeNotice', $ContainsTarget: true,
    });
    expect(member(member(schemaObject, 'engChangeNoticeComment'), 'engChangeNotice')).toEqual({
      $Kind: 'NavigationProperty', $Type: 'Microsoft.NAV.engChangeNotice', $Partner: 'engChangeNoticeComments', $ReferentialConstraint: { engChangeNoticeId: 'id' },
    });
    expect(member(member(schemaObject, 'engChangeNotice'), 'changeReason')).toEqual({ $Kind: 'NavigationProperty', $Type: 'Microsoft.NAV.changeReason', $Nullable: true });
    expect(member(member(schemaObject, 'company'), 'engChangeNotices')).toEqual({ $Kind: 'NavigationProperty', $Type: 'Microsoft.NAV.engChangeNotice', $Collection: true, $ContainsTarget: true });
  });

  test('writes bound actions as overload arrays and the container with bindings', () => {
    expect(schemaObject['createEngChangeOrder']).toEqual([{
      $Kind: 'Action',
      $IsBound: true,
      $Parameter: [{ $Name: 'bindingParameter', $Type: 'Microsoft.NAV.engChangeNotice' }],
      $ReturnType: { $Type: 'Microsoft.NAV.engChangeOrder' },
      '@Core.Description': 'Creates an engineering change order from an approved ECN.',
    }]);
    const container = member(schemaObject, 'NAV');
    expect(container['$Kind']).toBe('EntityContainer');
    const applySupported = { '@Aggregation.ApplySupported': { Transformations: ['aggregate', 'groupby', 'filter', 'orderby', 'top', 'skip', 'identity', 'concat'], Rollup: 'None' } };
    expect(member(container, 'engChangeOrderTasks')).toEqual({
      $Collection: true,
      $Type: 'Microsoft.NAV.engChangeOrderTask',
      $NavigationPropertyBinding: { engChangeOrder: 'engChangeOrders', assignedUser: 'userSetups', workCenterGroup: 'workCenterGroups' },
      ...applySupported,
    });
    expect(member(container, 'companies')).toEqual({ $Collection: true, $Type: 'Microsoft.NAV.company', ...applySupported });
  });

  test('is deterministic', () => {
    expect(JSON.stringify(toCsdlJson(loadTestModel()))).toBe(JSON.stringify(document));
  });
});
