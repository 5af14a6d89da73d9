/**
 * Administration commands (conventions §7: an operator never edits the database by hand):
 *   users add|list, grant, revoke, token [revoke], companies add|list.
 * Each takes --db FILE; `token` prints only the token on stdout, so it can be captured by a script.
 */
import { randomUUID } from 'node:crypto';
import { ident, sqlText } from '../sql/sql-text.js';
import { knownPermissionSets } from '../auth/permission-sets.js';
import { parseLifetime } from '../auth/token-store.js';
import { parseFlags, UsageError } from './args.js';
import { openStores, type Stores } from './open-stores.js';

const DB_HELP = '  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)\n  --metadata DIR     model folder (default: the packaged metadata/)';

/** Help texts of the admin commands. */
export const ADMIN_HELP: Readonly<Record<string, string>> = {
  users: `Usage: ecn-odata users add --user ID [--email E] [--default-company C]\n       ecn-odata users list\n\n${DB_HELP}`,
  grant: `Usage: ecn-odata grant --user ID --company <id or name> --set SET [--set SET ...]\n\nSets: ECN-READ, ECN-WRITE, TASK-READ, TASK-WRITE, EVENTS, SUPER (and any set the model names).\n\n${DB_HELP}`,
  revoke: `Usage: ecn-odata revoke --user ID --company <id or name> [--set SET ...]   (all sets when none is named)\n\n${DB_HELP}`,
  token: `Usage: ecn-odata token --user ID [--expires 30d]      issue a token (prints only the token)\n       ecn-odata token revoke (--token T | --user ID)\n\n${DB_HELP}`,
  companies: `Usage: ecn-odata companies add --name NAME [--display-name TEXT]\n       ecn-odata companies list\n\n${DB_HELP}`,
};

const common = { db: { type: 'string' }, metadata: { type: 'string' } } as const;

function stores(values: Record<string, string | boolean | undefined>): Promise<Stores> {
  return openStores(typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite', typeof values['metadata'] === 'string' ? values['metadata'] : undefined);
}

function required(cmd: string, values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`ecn-odata ${cmd}: --${name} is required. Try 'ecn-odata ${cmd} --help'.`);
  return v;
}

function list(values: Record<string, unknown>, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
}

/** Runs an admin command; returns the process exit code. */
export async function runAdmin(command: string, argv: string[]): Promise<number> {
  const first = argv[0];
  const sub = first !== undefined && !first.startsWith('-') ? first : undefined;
  const rest = sub === undefined ? argv : argv.slice(1);
  const cmd = sub === undefined ? command : `${command} ${sub}`;
  const { values, help } = parseFlags(cmd, rest, {
    ...common,
    user: { type: 'string' },
    email: { type: 'string' },
    'default-company': { type: 'string' },
    company: { type: 'string' },
    set: { type: 'string', multiple: true },
    expires: { type: 'string' },
    token: { type: 'string' },
    name: { type: 'string' },
    'display-name': { type: 'string' },
  });
  if (help) {
    console.log(ADMIN_HELP[command] ?? '');
    return 0;
  }
  const s = await stores(values);
  try {
    switch (`${command}${sub === undefined ? '' : ` ${sub}`}`) {
      case 'users add': {
        const u = await s.users.addUser(required(cmd, values, 'user'), values['email'] as string | undefined, values['default-company'] as string | undefined);
        console.log(`User ${u.userId} saved.`);
        return 0;
      }
      case 'users list':
        for (const u of await s.users.users()) {
          const grants = [...(await s.users.grants(u.userId))].map(([c, sets]) => `${c}: ${[...sets].sort().join(' ')}`).join('; ');
          console.log(`${u.userId}\t${u.email ?? ''}\t${grants}`);
        }
        return 0;
      case 'grant': {
        const sets = list(values, 'set');
        if (sets.length === 0) throw new UsageError(`ecn-odata grant: name at least one --set (${knownPermissionSets(s.model).join(', ')}).`);
        await s.users.grant(required(cmd, values, 'user'), required(cmd, values, 'company'), sets);
        console.log(`Granted ${sets.join(', ')} to ${String(values['user']).toUpperCase()} in ${String(values['company'])}.`);
        return 0;
      }
      case 'revoke': {
        const n = await s.users.revoke(required(cmd, values, 'user'), required(cmd, values, 'company'), list(values, 'set'));
        console.log(`Removed ${n} grant${n === 1 ? '' : 's'}.`);
        return 0;
      }
      case 'token': {
        const userId = required(cmd, values, 'user');
        const user = await s.users.user(userId);
        if (user === undefined) throw new UsageError(`ecn-odata token: there is no user '${userId}'; add it with: ecn-odata users add --user ${userId}`);
        const lifetime = typeof values['expires'] === 'string' ? parseLifetime(values['expires']) : undefined;
        console.log((await s.tokens.issue(user.userId, lifetime)).token);
        return 0;
      }
      case 'token revoke': {
        const n = await s.tokens.revoke({ token: values['token'] as string | undefined, userId: values['user'] as string | undefined });
        console.log(`Revoked ${n} token${n === 1 ? '' : 's'}.`);
        return 0;
      }
      case 'companies add': {
        const name = required(cmd, values, 'name');
        const sql = sqlText(s.engine.dialect);
        await s.engine.db.run(sql`INSERT INTO ${ident(s.model.company.table)} ("id", "name", "displayName", "_version") VALUES (${randomUUID()}, ${name}, ${(values['display-name'] as string | undefined) ?? name}, 1)`);
        console.log(`Company ${name} added (id ${await s.users.companyId(name)}).`);
        return 0;
      }
      case 'companies list':
        const sql = sqlText(s.engine.dialect);
        const companies = await s.engine.db.all(sql`SELECT "id", "name", "displayName" FROM ${ident(s.model.company.table)} ORDER BY "name"`);
        for (const c of companies as unknown as { id: string; name: string; displayName: string | null }[]) {
          console.log(`${c.id}\t${c.name}\t${c.displayName ?? ''}`);
        }
        return 0;
      default:
        throw new UsageError(`ecn-odata ${command}: unknown subcommand '${sub ?? ''}'. Try 'ecn-odata ${command} --help'.`);
    }
  } finally {
    await s.close();
  }
}
