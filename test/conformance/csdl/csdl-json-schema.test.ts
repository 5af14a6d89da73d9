/**
 * The CSDL JSON `$metadata` of the model against the OASIS csdl.schema.json from ../shared/conformance
 * (run by `npm run test:conformance`; the document's shape is checked in test/unit/serialize).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { toCsdlJson } from '../../../src/serialize/csdl-json.js';
import { loadTestModel, REPO_ROOT } from '../../fixtures/model.js';

/** The OASIS CSDL JSON schema (draft-07; its name patterns use \p{L}, which ajv's unicode regexps handle). */
const CSDL_SCHEMA = path.resolve(REPO_ROOT, '../shared/conformance/csdl.schema.json');

describe('CSDL JSON against the OASIS csdl.schema.json', () => {
  if (!fs.existsSync(CSDL_SCHEMA)) throw new Error(`The CSDL JSON schema is missing: ${CSDL_SCHEMA} (npm run test:conformance needs ../shared/conformance beside the repository).`);
  const ajv = new Ajv({ strict: false, allErrors: true });
  formatsPlugin.default(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(CSDL_SCHEMA, 'utf8')) as object);
  const document = toCsdlJson(loadTestModel());

  test('the model document is valid', () => {
    const valid = validate(document);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test('negative control: a broken copy is rejected', () => {
    const broken = structuredClone(document) as Record<string, Record<string, Record<string, unknown>>>;
    const ecn = broken['Microsoft.NAV']?.['engChangeNotice'];
    if (!ecn) throw new Error('no engChangeNotice');
    ecn['number'] = { $Type: 'Edm.String', $Nullable: 'no' };
    expect(validate(broken)).toBe(false);
    expect(validate({ ...document, $Version: '5.0' })).toBe(false);
  });
});
