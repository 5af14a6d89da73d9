/**
 * src/db/database-location.ts: `--db` names a SQLite file or a PostgreSQL URL, any other scheme is refused,
 * and a URL's password never reaches a message, even in a URL that cannot be read.
 */
import { DatabaseLocationError, parseDatabaseLocation, redactUrl } from '../../../src/db/database-location.js';

test.each([
  ['data/ecn.sqlite', { kind: 'sqlite', file: 'data/ecn.sqlite' }],
  [':memory:', { kind: 'sqlite', file: ':memory:' }],
  ['postgres://u:p@h:5432/db', { kind: 'postgres', url: 'postgres://u:p@h:5432/db' }],
  ['PostgreSQL://u@h/db', { kind: 'postgres', url: 'PostgreSQL://u@h/db' }],
])('%s is %j', (text, location) => {
  expect(parseDatabaseLocation(text)).toEqual(location);
});

test('another scheme is refused, naming what is accepted, with the password hidden', () => {
  expect(() => parseDatabaseLocation('mysql://root:secret@h/db')).toThrow(DatabaseLocationError);
  expect(() => parseDatabaseLocation('mysql://root:secret@h/db')).toThrow(/^'mysql:\/\/root:\*\*\*@h\/db' is not a database this service runs on: give a SQLite file path/);
});

test.each([
  ['postgres://ecn:secret@db.example.com:5432/ecn', 'postgres://ecn:***@db.example.com:5432/ecn'],
  ['postgres://ecn:pa#ss/word@db.example.com/ecn', 'postgres://ecn:***@db.example.com/ecn'],
  ['postgres://ecn:a?b@c@db.example.com/ecn', 'postgres://ecn:***@db.example.com/ecn'],
  ['postgres://ecn@db.example.com/ecn', 'postgres://ecn@db.example.com/ecn'],
  ['postgres://db.example.com:5432/ecn', 'postgres://db.example.com:5432/ecn'],
  ['data/ecn.sqlite', 'data/ecn.sqlite'],
])('redactUrl(%s) is %s', (url, shown) => {
  expect(redactUrl(url)).toBe(shown);
});
