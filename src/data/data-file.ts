/**
 * Reads a data file of one entity set, CSV or JSON, as records with the line each came from, so that
 * every problem can name file and line. CSV (RFC 4180, through csv-parse): a header row of property
 * names, then one record per row; cells are text and are converted by csv-values.ts. JSON: an array
 * of objects written as in a POST body. Both are read as a stream of records (a CSV file of any size
 * in constant memory; a JSON file is parsed whole).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse';
import type { EntityType, Property } from '../edm/model.js';
import { csvHeaderProblems, csvRecordToJson } from './csv-values.js';

/** The formats of data files, by file extension. */
export type DataFormat = 'csv' | 'json';

/** One record of a data file: its line (the last line of a CSV record that spans lines) and its values as OData JSON. */
export interface DataRecord {
  readonly line: number;
  /** A JSON file's element number (1-based): several elements may share a line, a whole file written by JSON.stringify one. */
  readonly element?: number;
  readonly values: Record<string, unknown>;
}

/** A data file that cannot be read as records; the message names file and line. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'DataFileError';
  }
}

/** The format of a data file from its extension, or undefined. */
export function dataFormatOf(file: string): DataFormat | undefined {
  const ext = path.extname(file).toLowerCase();
  return ext === '.csv' ? 'csv' : ext === '.json' ? 'json' : undefined;
}

/** The records of `file` for `type`; a malformed file throws DataFileError (from the iteration). */
export function readDataFile(file: string, type: EntityType): AsyncIterable<DataRecord> {
  const format = dataFormatOf(file);
  if (format === undefined) throw new DataFileError(file, 1, 'a data file must end in .csv or .json.');
  return format === 'csv' ? readCsv(file, type) : readJson(file);
}

/** The line breaks inside the cells of a record (a quoted cell may span lines). */
function breaksIn(record: readonly string[]): number {
  let n = 0;
  for (const cell of record) for (let at = cell.indexOf('\n'); at >= 0; at = cell.indexOf('\n', at + 1)) n++;
  return n;
}

async function* readCsv(file: string, type: EntityType): AsyncIterable<DataRecord> {
  let header: readonly (Property | undefined)[] | undefined;
  // Records as arrays, and lines counted here rather than with csv-parse's `info` (an object per
  // record): a bulk import reads 100,000 of them. An empty line is a record of one empty cell.
  const parser = fs.createReadStream(file).pipe(parse({ bom: true, relax_column_count: true }));
  let line = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      line += 1 + breaksIn(record);
      if (record.length === 1 && record[0] === '') continue;
      if (header === undefined) {
        const problems = csvHeaderProblems(type, record);
        if (problems.length > 0) throw new DataFileError(file, line, problems.join(' '));
        header = record.map((name) => type.propertyByName.get(name));
        continue;
      }
      if (record.length !== header.length) throw new DataFileError(file, line, `not valid CSV: the row has ${record.length} cells and the header ${header.length}.`);
      yield { line, values: csvRecordToJson(header, record) };
    }
  } catch (e) {
    if (e instanceof DataFileError) throw e;
    const error = e as { message?: string; lines?: number };
    throw new DataFileError(file, error.lines ?? line + 1, `not valid CSV: ${String(error.message ?? e)}`);
  }
  if (header === undefined) throw new DataFileError(file, 1, 'the file is empty; a CSV data file starts with a header row of property names.');
}

/** Where each top-level element of a JSON array is: its text range and 1-based start line (strings and nesting skipped). */
function elementRanges(text: string): { start: number; end: number; line: number }[] {
  const ranges: { start: number; end: number; line: number }[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let current: { start: number; line: number } | undefined;
  const close = (end: number): void => {
    if (current !== undefined) ranges.push({ ...current, end });
    current = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && current === undefined && c !== ',' && c !== ']' && !/\s/.test(c)) current = { start: i, line };
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) close(i);
    } else if (c === ',' && depth === 1) close(i);
  }
  close(text.length);
  return ranges;
}

/** The line of the first element of a JSON array that does not parse on its own (for JSON.parse errors that name no position). */
function badElementLine(text: string): number {
  for (const range of elementRanges(text)) {
    try {
      JSON.parse(text.slice(range.start, range.end));
    } catch {
      return range.line;
    }
  }
  return 1;
}

async function* readJson(file: string): AsyncIterable<DataRecord> {
  const text = await fs.promises.readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    const line = at === null ? badElementLine(text) : text.slice(0, Number(at[1])).split('\n').length;
    throw new DataFileError(file, line, `not valid JSON: ${((e as Error).message.split('\n')[0] ?? '').replace(/, ".*$/, '')}`);
  }
  if (!Array.isArray(parsed)) throw new DataFileError(file, 1, 'a JSON data file holds an array of objects, one per record.');
  const ranges = elementRanges(text);
  for (const [index, element] of parsed.entries()) {
    const line = ranges[index]?.line ?? 1;
    if (element === null || typeof element !== 'object' || Array.isArray(element)) throw new DataFileError(file, line, `element ${index + 1} is not an object.`);
    yield { line, element: index + 1, values: element as Record<string, unknown> };
  }
}
