/**
 * A company is addressed in a path by its id only (`companies(<id>)`); a client that writes its name
 * there (`companies(CRONUS)`, `companies('CRONUS')`) gets the parser's or binder's 400 with the two
 * forms that work added, so following the message leads somewhere.
 */
import type { EdmModel } from '../edm/model.js';
import { UriSyntaxError } from '../errors/odata-error.js';

/** `e`, or for a malformed key of the company set the same 400 with the forms that work. */
export function withCompanyKeyHint(model: EdmModel, path: string, e: unknown): unknown {
  const companies = model.company.entitySet;
  if (!(e instanceof UriSyntaxError) || !path.startsWith(`/${companies}(`)) return e;
  // The set and the name the client wrote, so the example is the URL it meant.
  const m = /^\/[^(]+\('?([A-Za-z0-9 _.-]{1,60}?)'?\)(?:\/([A-Za-z_][A-Za-z0-9_]*))?/.exec(decodedOrAsIs(path));
  const set = m?.[2] ?? firstCompanyScopedSet(model) ?? '<entitySet>';
  const name = m?.[1] ?? '<name>';
  const hint =
    `A company is addressed by its id: ${companies}(<id>)/... ; to name it instead, leave out that prefix and add ` +
    `the query option company=<name>: /${set}?company=${encodeURIComponent(name)}. GET ${companies} lists each company's id and name.`;
  return new UriSyntaxError(`${e.message} ${hint}`, e.option, e.position);
}

/** The path percent-decoded, or as it is where its encoding is malformed (the parser's error says so). */
function decodedOrAsIs(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function firstCompanyScopedSet(model: EdmModel): string | undefined {
  return model.entityTypes.find((t) => t.scope === 'company' && t.entitySet !== undefined)?.entitySet;
}
