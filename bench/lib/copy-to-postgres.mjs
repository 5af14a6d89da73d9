// Copies the bench data set from the seeded SQLite file into a PostgreSQL database, so the PostgreSQL
// run serves exactly the rows of the SQLite run (which are CAP's rows): our service makes the tables
// (createService migrates), then every row of every model table is copied column by column in its
// stored form (same forms on both engines), 500 rows per INSERT, in one transaction without foreign-key
// checks; then each row's stored entity JSON is built (the copy ran without triggers) and its ETag
// stored; then VACUUM
// FULL (the tables as a load that built the JSON on insert leaves them) and VACUUM (ANALYZE), as the CAP
// peer's seed.js vacuums and analyzes its tables: statistics for the planner, and the visibility map set, so index-only scans (counts) need no heap visits and autovacuum
// does not start on the fresh rows in the middle of a timed run.
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { REPO } from './work-folder.mjs';

const dist = (p) => import(path.join(REPO, 'dist', 'src', p));
const ROWS_PER_INSERT = 500;
const q = (name) => `"${name.replace(/"/g, '""')}"`;

/** Copies the model tables of `sqliteFile` into the database at `url`; gives the rows copied per table and the seconds. */
export async function copyToPostgres(sqliteFile, url) {
  const t0 = Date.now();
  const { createService } = await dist('service.js');
  const { defaultOptions } = await dist('config.js');
  const service = await createService(defaultOptions({ dbFile: url, logLevel: 'silent' }));
  const model = service.model;
  const tables = [...new Set(model.entityTypes.map((t) => t.table))];
  await service.close();

  const source = new Database(sqliteFile, { readonly: true });
  const target = new pg.Client({ connectionString: url });
  await target.connect();
  const copied = {};
  try {
    await target.query('BEGIN');
    // The rows are consistent already (they come from a database that checked them): the foreign keys'
    // triggers stay off while copying, so the tables need no order (the bench's server user is a superuser).
    await target.query("SET LOCAL session_replication_role = 'replica'");
    for (const table of tables) {
      const wanted = new Set((await target.query('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])).rows.map((r) => r.column_name));
      // Not the entity JSON SQLite's triggers kept: PostgreSQL builds its own below.
      const columns = source.prepare(`SELECT name FROM pragma_table_info(?)`).all(table).map((r) => r.name).filter((c) => wanted.has(c) && c !== '_entityJson');
      if (columns.length === 0) continue;
      const rows = source.prepare(`SELECT ${columns.map(q).join(', ')} FROM ${q(table)}`).raw(true).all();
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const chunk = rows.slice(i, i + ROWS_PER_INSERT);
        const params = [];
        const tuples = chunk.map((row) => `(${row.map((v) => `$${params.push(v)}`).join(', ')})`);
        await target.query(`INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, params);
      }
      copied[table] = rows.length;
    }
    // The set counts PostgreSQL keeps for `$count` (src/db/postgres/postgres-set-counts.ts) are kept by
    // triggers too: counted again from the copied rows.
    const { countedTypes, recountSql } = await dist('db/postgres/postgres-set-counts.js');
    for (const type of countedTypes(model)) for (const statement of recountSql(type)) await target.query(statement.sql, statement.params);
    await target.query('COMMIT');
    // The rows were copied with the triggers off, so none keeps its entity JSON yet (PostgreSQL's
    // stored entity JSON, src/db/postgres/postgres-entity-json.ts): setting it to NULL with the
    // triggers on builds it, once every table is filled (the JSON reads other tables' rows). The same
    // UPDATE stores each row's ETag (src/db/sqlite/sqlite-stored-etags.ts), as the service's writes do and as SQLite's
    // start-up does for the SQLite run (the seeded file has none); else our server's start-up would
    // store them after the VACUUMs below.
    for (const table of tables) {
      const has = new Set((await target.query('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])).rows.map((r) => r.column_name));
      const sets = [
        ...(has.has('_entityJson') ? ['"_entityJson" = NULL'] : []),
        ...(has.has('_etagOf') ? ['"_etag" = odata_etag("_version")', '"_etagOf" = "_version"'] : []),
      ];
      if (sets.length > 0) await target.query(`UPDATE ${q(table)} SET ${sets.join(', ')}`);
    }
    // Outside the transaction: VACUUM cannot run inside one. FULL writes the tables anew without the
    // row versions the UPDATE left, as a load that built the JSON on insert would have left them; a
    // plain VACUUM then sets the visibility map, which FULL leaves unset.
    await target.query('VACUUM FULL');
    await target.query('VACUUM (ANALYZE)');
  } catch (e) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    source.close();
    await target.end();
  }
  return { copied, seconds: (Date.now() - t0) / 1000 };
}
