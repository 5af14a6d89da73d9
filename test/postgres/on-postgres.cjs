// Jest setup file of the "postgres" project (jest.postgres.config.js): the suites it runs open their test
// services on PostgreSQL (test/helpers/postgres.ts onPostgres).
process.env.ECN_TEST_ENGINE = 'postgres';
