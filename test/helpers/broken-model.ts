/**
 * Copies of the fixture model to break in model-check tests, and the problems loading them reports.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../src/edm/load-model.js';
import { ModelError, type ModelProblem } from '../../src/edm/model-error.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';

/** A JSON document of a metadata file, loosely typed for editing. */
export type JsonDocument = Record<string, unknown>;

/** A fresh copy of the fixture model in a temporary folder; returns its metadata folder. */
export function copyFixtureModel(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'broken-model-')), 'metadata');
  fs.cpSync(FIXTURE_METADATA, dir, { recursive: true });
  return dir;
}

/** Rewrites one JSON file of a copied model (`file` relative to the metadata folder). */
export function editJson(dir: string, file: string, edit: (doc: JsonDocument) => JsonDocument): void {
  const full = path.join(dir, file);
  fs.writeFileSync(full, JSON.stringify(edit(JSON.parse(fs.readFileSync(full, 'utf8')) as JsonDocument), null, 2));
}

/** The problems of a model that must not load. */
export function problemsOf(dir: string): readonly ModelProblem[] {
  try {
    loadModel(dir);
  } catch (error) {
    if (error instanceof ModelError) return error.problems;
    throw error;
  }
  throw new Error('the broken model loaded');
}
