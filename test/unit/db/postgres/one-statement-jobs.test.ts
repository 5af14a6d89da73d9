import { OneStatementJobs } from '../../../../src/db/postgres/one-statement-jobs.js';

const UPDATE = 'UPDATE "x" SET "n" = $1 WHERE "id" = $2 RETURNING *';

test('a first statement never seen, or with no text, is not taken for one statement', () => {
  const jobs = new OneStatementJobs();
  expect(jobs.known(UPDATE)).toBe(false);
  expect(jobs.known(undefined)).toBe(false);
});

test('one job of that one statement teaches it, one that sent more unteaches it at once', () => {
  const jobs = new OneStatementJobs();
  jobs.learn(UPDATE, true);
  expect(jobs.known(UPDATE)).toBe(true);
  jobs.learn(UPDATE, false);
  expect(jobs.known(UPDATE)).toBe(false);
  expect(jobs.known('INSERT INTO "y" VALUES ($1)')).toBe(false);
});

test('after a job of two statements, six jobs of one in a row teach it again (not five)', () => {
  const jobs = new OneStatementJobs();
  jobs.learn(UPDATE, false);
  for (let n = 1; n <= 5; n++) {
    jobs.learn(UPDATE, true);
    expect(jobs.known(UPDATE)).toBe(false);
  }
  jobs.learn(UPDATE, true);
  expect(jobs.known(UPDATE)).toBe(true);
});

test('past 2,000 first statements the memory starts over', () => {
  const jobs = new OneStatementJobs();
  jobs.learn(UPDATE, true);
  for (let n = 0; n < 1999; n++) jobs.learn(`SELECT ${n}`, true);
  expect(jobs.known(UPDATE)).toBe(true);
  jobs.learn('SELECT 2000', true);
  expect(jobs.known(UPDATE)).toBe(false);
  expect(jobs.known('SELECT 2000')).toBe(true);
});
