/**
 * The CSDL XML schemas `npm test` validates `$metadata` with are vendored in conformance/oasis/; they
 * must stay byte-identical to the OASIS copies in ../shared/conformance (run by `npm run test:conformance`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../fixtures/model.js';

const SHARED = path.resolve(REPO_ROOT, '../shared/conformance');
const VENDORED = path.join(REPO_ROOT, 'conformance', 'oasis');

describe('vendored OASIS CSDL XML schemas', () => {
  test.each(['edm.xsd', 'edmx.xsd', 'LICENSE-odata-csdl-schemas.md'])('%s equals ../shared/conformance/%s', (name) => {
    const shared = path.join(SHARED, name);
    if (!fs.existsSync(shared)) throw new Error(`${shared} is missing (npm run test:conformance needs ../shared/conformance beside the repository).`);
    expect(fs.readFileSync(path.join(VENDORED, name), 'utf8')).toBe(fs.readFileSync(shared, 'utf8'));
  });
});
