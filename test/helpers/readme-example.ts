/**
 * Reads the examples of README.md, so the tests that apply them run exactly what the README shows and
 * the README cannot drift from what works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../fixtures/model.js';

/** The text of the README section whose heading starts with `heading`, up to the next `## ` heading. */
function readmeSection(heading: string): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README.md has no section '## ${heading}'`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Each fenced block of the section in `language`: its text and the section's text since the block before it (of any language). */
function blocksWithLeadIn(heading: string, language: string): { text: string; leadIn: string }[] {
  const section = readmeSection(heading);
  const found: { text: string; leadIn: string }[] = [];
  let after = 0;
  for (const match of section.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (match[1] === language) found.push({ text: match[2] ?? '', leadIn: section.slice(after, match.index) });
    after = (match.index ?? 0) + match[0].length;
  }
  return found;
}

/** The fenced code blocks (of one language) in the README section whose heading starts with `heading`. */
export function readmeBlocks(heading: string, language: string): string[] {
  return blocksWithLeadIn(heading, language).map((block) => block.text);
}

function theBlock(heading: string, language: string, marker: string): { text: string; leadIn: string } {
  const found = blocksWithLeadIn(heading, language).filter((block) => block.text.includes(marker));
  if (found.length !== 1) throw new Error(`README.md '## ${heading}' has ${found.length} ${language} blocks containing '${marker}', expected 1`);
  return found[0] as { text: string; leadIn: string };
}

/** The one block of the section whose first line (or text) contains `marker`. */
export function readmeBlock(heading: string, language: string, marker: string): string {
  return theBlock(heading, language, marker).text;
}

/**
 * The one block of the section containing `marker`, and the file the README's text before it says it
 * goes to ("Create `src/rules/x.ts`:", "register it in `src/rules/index.ts`: ..."): the last file path
 * in backquotes (a folder and a name with an extension) since the block before.
 */
export function readmeFileBlock(heading: string, language: string, marker: string): { file: string; text: string } {
  const block = theBlock(heading, language, marker);
  const paths = [...block.leadIn.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\/[\w-]+\.\w+)`/g)].map((m) => m[1] as string);
  const file = paths[paths.length - 1];
  if (file === undefined) throw new Error(`README.md '## ${heading}': the text before the ${language} block containing '${marker}' names no file`);
  return { file, text: block.text };
}
