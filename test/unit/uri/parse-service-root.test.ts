import { parseServiceRoot } from '../../../src/uri/parse-service-root.js';
import { syntaxError } from './helpers.js';

test('host names, IPv4, IPv6 and IPvFuture literals, ports', () => {
  expect(parseServiceRoot('http://127.0.0.1:8080/MyService/')).toEqual({ scheme: 'http', host: '127.0.0.1', port: 8080, end: 32 });
  expect(parseServiceRoot('https://[2001:db8:85a3:8d3:1319:8a2e:370:7348]:8080/S/').host).toBe('[2001:db8:85a3:8d3:1319:8a2e:370:7348]');
  expect(parseServiceRoot('https://[::1]/').host).toBe('[::1]');
  expect(parseServiceRoot('https://[v7.0]/MyService/').host).toBe('[v7.0]');
  expect(parseServiceRoot('HTTP://My.Org:80/').scheme).toBe('http');
});

test('the root runs to the last / before the query (the ABNF repetition is greedy)', () => {
  const text = 'http://host/service/Products?$filter=a/b';
  expect(text.slice(parseServiceRoot(text).end)).toBe('Products?$filter=a/b');
});

test('malformed roots', () => {
  expect(syntaxError(() => parseServiceRoot('http//My.Org/')).position).toBe(4);
  expect(syntaxError(() => parseServiceRoot('ftp://x/')).position).toBe(0);
  expect(syntaxError(() => parseServiceRoot('http://[1:2:3]/')).message).toMatch(/not an IPv6/);
  expect(syntaxError(() => parseServiceRoot('http://host')).message).toMatch(/must end with '\/'/);
  expect(syntaxError(() => parseServiceRoot('http://host:80a/')).message).toMatch(/not a port number/);
});
