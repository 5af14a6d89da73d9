/**
 * src/cli/watch.ts: `serve --watch` as a user runs it. A broken model file is reported and the last good
 * service keeps answering; a valid change (the README's new entity) is checked and the service restarts
 * with it. (--no-compile: the test does not run tsc --watch over the repository.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN } from '../../helpers/serve-process.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';
import { readmeBlock } from '../../helpers/readme-example.js';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-watch-'));
const metadata = path.join(workDir, 'metadata');
let child: ChildProcess;
let stdout = '';
let stderr = '';

beforeAll(() => {
  fs.cpSync(FIXTURE_METADATA, metadata, { recursive: true });
  child = spawn(process.execPath, [BIN, 'serve', '--watch', '--no-compile', '--port', '0', '--db', path.join(workDir, 'w.sqlite'), '--seed', 'demo', '--metadata', metadata, '--log-level', 'silent'], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
});
afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** Waits until `probe` returns a value (polling the output), or fails after 20 s. */
async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; stdout:\n${stdout}\nstderr:\n${stderr}`);
}

/** The URL and token the service printed last (each restart prints them again). */
function latest(): { url: string; token: string } | undefined {
  const urls = [...stdout.matchAll(/serving (http:\/\/\S+\/api\/v2\.0)\//g)];
  const tokens = [...stdout.matchAll(/\n\s*(ecn_\S+)/g)];
  const url = urls[urls.length - 1]?.[1];
  const token = tokens[tokens.length - 1]?.[1];
  return url === undefined || token === undefined ? undefined : { url, token };
}

test('a broken model is reported and the last good service keeps serving; a good change restarts it', async () => {
  const first = await until('the first start', latest);
  expect((await fetch(`${first.url}/$metadata`)).status).toBe(200);

  const contact = path.join(metadata, 'entities', 'contact.json');
  const good = fs.readFileSync(contact, 'utf8');
  fs.writeFileSync(contact, good.replace('"Edm.String"', '"Edm.Strin"'));
  await until('the failed check', () => (stderr.includes('not reloaded') ? true : undefined));
  expect(stderr).toContain('still serving the last good model and rules');
  expect(stderr).toMatch(/contact\.json: \/properties\/\d+\/type: Unknown type "Edm\.Strin"\. Fix: use "Edm\.String" \(did you mean it\?\)/);
  const stillUp = await fetch(`${first.url}/contacts?$top=1`, { headers: { Authorization: `Bearer ${first.token}` } });
  expect(stillUp.status).toBe(200);
  expect(latest()).toEqual(first);

  fs.writeFileSync(contact, good);
  fs.writeFileSync(path.join(metadata, 'entities', 'engChangeNoticeAttachment.json'), readmeBlock('Adding an entity', 'json', '"name": "engChangeNoticeAttachment"'));
  const second = await until('the restart', () => {
    const now = latest();
    return now !== undefined && now.url !== first.url ? now : undefined;
  });
  expect(stderr).toContain('checked, restarting');
  const attachments = await fetch(`${second.url}/engChangeNoticeAttachments`, { headers: { Authorization: `Bearer ${second.token}` } });
  expect(attachments.status).toBe(200);
  await expect(fetch(`${first.url}/$metadata`)).rejects.toThrow();
});
