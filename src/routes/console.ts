import { createHash } from 'node:crypto';
import type { App, RoutePlugin } from '../http/app.js';
import { CONSOLE_PAGE, CONSOLE_STYLE } from './console-page.js';
import { CONSOLE_SCRIPT } from './console-script.js';
import { OPENAPI_PATH } from '../http/openapi.js';

export const CONSOLE_PATH = '/console';

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page is constant, so its inline script and style are allowed by hash rather than a nonce.
 * Nothing else loads; fetch may reach this origin only; forms cannot navigate anywhere (the page
 * submits through fetch, so a token can never end up in a URL); no DOM sink takes strings.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  `script-src ${sha256Source(CONSOLE_SCRIPT)}`,
  `style-src ${sha256Source(CONSOLE_STYLE)}`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Where a newcomer goes from `GET /`. */
export const ROOT_LINKS = { console: CONSOLE_PATH, openapi: OPENAPI_PATH, health: '/healthz' } as const;

/** The service's front door for a browser: a page of links, nothing loaded, nothing run. */
const ROOT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pkgscope</title></head>
<body><h1>pkgscope</h1>
<p>Explore packages, repositories and documentation sites, and turn lockfiles into CycloneDX, SPDX or text inventories.</p>
<ul>
<li><a href="${ROOT_LINKS.console}">Job console</a>: submit lockfiles and follow their analysis jobs</li>
<li><a href="${ROOT_LINKS.openapi}">OpenAPI document</a> of the <code>/v1</code> API (bearer token required)</li>
<li><a href="${ROOT_LINKS.health}">Health</a></li>
</ul></body></html>
`;

/**
 * `GET /console`: the job console page, public (the token is pasted into the page, never sent to
 * fetch it). `GET /` links it: an HTML page for browsers, a JSON object of links for other clients.
 */
export function consoleRoutes(): RoutePlugin {
  return async (app: App) => {
    app.get('/', async (request, reply) => {
      // Browsers name text/html outright; curl's */* and API clients get JSON.
      const wantsHtml = /(^|,)\s*text\/html\s*(;|,|$)/i.test(request.headers.accept ?? '');
      reply.header('x-content-type-options', 'nosniff');
      if (!wantsHtml) return reply.type('application/json; charset=utf-8').send({ service: 'pkgscope', links: ROOT_LINKS });
      return reply.header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'").type('text/html; charset=utf-8').send(ROOT_PAGE);
    });
    app.get(CONSOLE_PATH, async (_request, reply) =>
      reply
        .header('content-security-policy', CONSOLE_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .type('text/html; charset=utf-8')
        .send(CONSOLE_PAGE),
    );
  };
}
