/**
 * What the service's HTML pages (index-page.ts, docs-page.ts) share: escaping and the response headers.
 * The pages load nothing from another origin, and their Content-Security-Policy says so, so a page can
 * run no script but the service's own files.
 */
import type { ODataResponse } from '../core/request.js';

/** The start of a page up to `<body>`: `title` is text, `head` HTML (stylesheets). */
export function pageStart(title: string, icon: string, head: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${escapeHtml(icon)}">
${head}
</head>
<body>
`;
}

/** Text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Scripts only from the service; inline styles because Swagger UI's components set them. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** A 200 with an HTML page. */
export function htmlResponse(html: string): ODataResponse {
  return {
    status: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache' },
    body: html,
  };
}
