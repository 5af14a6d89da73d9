/**
 * SQLite: double-quoted identifiers, `?` placeholders, booleans as 0/1.
 * Every SQLite-specific spelling of the query layer lives here (DDL text lives in db/).
 */
import type { Dialect } from './dialect.js';

/** The SQLite dialect. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  quoteIdentifier: (name) => `"${name.replace(/"/g, '""')}"`,
  placeholder: () => '?',
  likeEscape: '\\',
  booleanValue: (value) => (value ? 1 : 0),
  existsAsValue: (exists) => exists,
};
