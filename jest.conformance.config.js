/**
 * `npm run test:conformance`: the suites that read the OASIS corpus in ../shared/conformance (ABNF test
 * cases, CSDL JSON schema, the XSDs the default suite vendors). Same transform as jest.config.js.
 */
import { resultsIn, shared } from './jest.config.js';

export default {
  ...shared,
  roots: ['<rootDir>/test/conformance'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 30000,
  reporters: resultsIn('.jest-conformance-results.json'),
};
