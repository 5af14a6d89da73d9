import { jsonContentType, negotiateJson } from '../../../src/core/format.js';
import { NotAcceptableError } from '../../../src/errors/odata-error.js';

describe('negotiateJson', () => {
  test.each([
    [undefined, 'minimal', false],
    ['', 'minimal', false],
    ['application/json', 'minimal', false],
    ['application/json;odata.metadata=none', 'none', false],
    ['application/json; odata.metadata=full; IEEE754Compatible=true', 'full', true],
    ['text/html;q=0.9, application/json;metadata=none;q=0.5', 'none', false],
    ['*/*', 'minimal', false],
  ])('Accept %p gives metadata=%s, IEEE754Compatible=%p, the same the second time', (accept, metadata, ieee) => {
    for (let i = 0; i < 2; i++) expect(negotiateJson(undefined, accept)).toEqual({ metadata, ieee754Compatible: ieee });
  });

  test('an Accept header nothing JSON satisfies is refused every time, not remembered as acceptable', () => {
    for (let i = 0; i < 2; i++) expect(() => negotiateJson(undefined, 'application/xml')).toThrow(NotAcceptableError);
    expect(() => negotiateJson(undefined, 'application/json;odata.metadata=bogus')).toThrow(NotAcceptableError);
  });

  test('$format wins over Accept', () => {
    expect(negotiateJson('application/json;odata.metadata=none', 'application/json;odata.metadata=full')).toEqual({ metadata: 'none', ieee754Compatible: false });
    expect(() => negotiateJson('xml', 'application/json')).toThrow(NotAcceptableError);
  });

  test('many different headers (more than are remembered) are each negotiated on their own', () => {
    for (let i = 0; i < 200; i++) {
      const accept = i % 2 === 0 ? `application/json;odata.metadata=none;x=${i}` : `application/json;x=${i}`;
      expect(negotiateJson(undefined, accept).metadata).toBe(i % 2 === 0 ? 'none' : 'minimal');
    }
    expect(jsonContentType(negotiateJson(undefined, 'application/json;odata.metadata=none'))).toBe('application/json; odata.metadata=none');
  });
});
