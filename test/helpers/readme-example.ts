/**
 * Reads the examples of README.md, so the tests that apply them run exactly what the README shows and
 * the README cannot drift from what works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../fixtures/model.js';

/** The fenced code blocks (of one language) in the README section whose heading starts with `heading`. */
export function readmeBlocks(heading: string, language: string): string[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README.md has no section '## ${heading}'`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks: string[] = [];
  const fence = new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g');
  for (const match of section.matchAll(fence)) blocks.push(match[1] ?? '');
  return blocks;
}

/** The one block of the section whose first line (or text) contains `marker`. */
export function readmeBlock(heading: string, language: string, marker: string): string {
  const found = readmeBlocks(heading, language).filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`README.md '## ${heading}' has ${found.length} ${language} blocks containing '${marker}', expected 1`);
  return found[0] as string;
}
