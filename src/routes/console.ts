import { createHash } from 'node:crypto';
import type { App, RoutePlugin } from '../http/app.js';
import { CONSOLE_PAGE, CONSOLE_STYLE } from './console-page.js';
import { CONSOLE_SCRIPT } from './console-script.js';

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

/** `GET /console`: the job console page, public (the token is pasted into the page, never sent to fetch it). */
export function consoleRoutes(): RoutePlugin {
  return async (app: App) => {
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
