/** Jest runs the TypeScript sources as native ES modules through @swc/jest (no type check: `npm run build` does that). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
      sourceMaps: 'inline',
    }],
  },
  testTimeout: 30000,
  testResultsProcessor: '<rootDir>/.ci/jest-results.cjs',
};
