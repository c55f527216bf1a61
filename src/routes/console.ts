import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError, sendProblem } from '../http/problems.js';
import { OPENAPI_PATH } from '../http/openapi.js';
import { ASSET_NAME, defaultConsoleDirectory, loadConsoleBuild, type ConsoleBuild } from './console-assets.js';

export const CONSOLE_PATH = '/console';
export const CONSOLE_ASSETS_PATH = '/console/assets';

/**
 * The console's scripts and styles are files of this origin; nothing else loads. Fetch may reach
 * this origin only; forms cannot navigate anywhere (the page submits through fetch, so a token
 * can never end up in a URL); no DOM sink takes strings (Preact builds the DOM node by node, so
 * Trusted Types admits no policy at all).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Hashed file names never change content: a year, immutable. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Where a newcomer goes from `GET /`. */
export const ROOT_LINKS = { console: CONSOLE_PATH, openapi: OPENAPI_PATH, health: '/healthz' } as const;

/** The service's front door for a browser: a page of links, nothing loaded, nothing run. */
const ROOT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pkgscope</title></head>
<body><h1>pkgscope</h1>
<p>Explore packages, repositories and documentation sites, and turn lockfiles into CycloneDX, SPDX or text inventories.</p>
<ul>
<li><a href="${ROOT_LINKS.console}">Console</a>: submit lockfiles, view inventories, browse packages and read their files</li>
<li><a href="${ROOT_LINKS.openapi}">OpenAPI document</a> of the <code>/v1</code> API (public; the operations it describes need a bearer token)</li>
<li><a href="${ROOT_LINKS.health}">Health</a></li>
</ul></body></html>
`;

export interface ConsoleOptions {
  /** The built console (`dist/console/` by default). */
  readonly directory?: string;
}

/**
 * `GET /console` (the page, public: the token is pasted into the page, never sent to fetch it) and
 * `GET /console/assets/<name>` (its hashed scripts and styles). The build is read once; while it
 * is missing the console answers 503 saying how to make it, and is picked up once it exists.
 * `GET /` links it: an HTML page for browsers, a JSON object of links for other clients.
 */
export function consoleRoutes(options: ConsoleOptions = {}): RoutePlugin {
  const directory = options.directory ?? defaultConsoleDirectory();
  let build: ConsoleBuild | null = null;
  const current = (): ConsoleBuild => {
    build ??= loadConsoleBuild(directory);
    if (build === null) throw new ProblemError('SERVICE_UNAVAILABLE', 'The console is not built: run `npm run build` (it builds the service and the console).');
    return build;
  };
  return async (app: App) => {
    app.get('/', async (request, reply) => {
      // Browsers name text/html outright; curl's */* and API clients get JSON.
      const wantsHtml = /(^|,)\s*text\/html\s*(;|,|$)/i.test(request.headers.accept ?? '');
      reply.header('x-content-type-options', 'nosniff');
      if (!wantsHtml) return reply.type('application/json; charset=utf-8').send({ service: 'pkgscope', links: ROOT_LINKS });
      return reply.header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'").type('text/html; charset=utf-8').send(ROOT_PAGE);
    });
    app.get(CONSOLE_PATH, async (request, reply) => {
      let page: Buffer;
      try {
        page = current().page;
      } catch (error) {
        if (error instanceof ProblemError) return sendProblem(request, reply, error);
        throw error;
      }
      return reply
        .header('content-security-policy', CONSOLE_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .type('text/html; charset=utf-8')
        .send(page);
    });
    // A typed trailing slash still finds the page (its asset URLs are absolute either way).
    app.get(`${CONSOLE_PATH}/`, async (_request, reply) => reply.redirect(CONSOLE_PATH, 308));
    app.get<{ Params: { name: string } }>(`${CONSOLE_ASSETS_PATH}/:name`, async (request, reply) => {
      let asset;
      try {
        const name = request.params.name;
        asset = ASSET_NAME.test(name) ? current().assets.get(name) : undefined;
      } catch (error) {
        if (error instanceof ProblemError) return sendProblem(request, reply, error);
        throw error;
      }
      if (asset === undefined) return sendProblem(request, reply, new ProblemError('NOT_FOUND', 'No console asset has this name.'));
      return reply
        .header('cache-control', ASSET_CACHE_CONTROL)
        .header('x-content-type-options', 'nosniff')
        .type(asset.contentType)
        .send(asset.body);
    });
  };
}
