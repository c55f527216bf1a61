import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Go module proxy speaking the GOPROXY protocol (https://go.dev/ref/mod#goproxy-protocol) on
 * 127.0.0.1: `/<module>/@v/list`, `/<module>/@v/<version>.info`, `.mod`, and `/<module>/@latest`,
 * module paths and versions in the proxy's case-encoding (`!b` for `B`).
 */

export interface GoProxyVersion {
  readonly time: string;
  /** The `Origin` object proxies add since Go 1.19 (VCS, URL, Ref, Hash). */
  readonly origin?: Readonly<Record<string, string>>;
  /** The version's go.mod; defaults to a bare `module` line. */
  readonly mod?: string;
}

export interface GoProxyModule {
  readonly versions: Readonly<Record<string, GoProxyVersion>>;
  /** What `@latest` answers; defaults to the last version listed. */
  readonly latest?: string;
  /** Answer every request for this module with this status (404 or 410: not there). */
  readonly status?: number;
}

export interface GoProxyOptions {
  readonly modules?: Readonly<Record<string, GoProxyModule>>;
  /** Answer every request with this status (a failing proxy). */
  readonly status?: number;
  /** Accept requests and never answer them (a proxy that hangs). */
  readonly hang?: boolean;
}

export interface GoProxy {
  readonly url: string;
  /** Decoded request paths, in arrival order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** The proxy's case-decoding: `!x` is `X`. */
function unescape(s: string): string {
  return s.replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());
}

export async function startGoProxy(options: GoProxyOptions = {}): Promise<GoProxy> {
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const raw = decodeURIComponent(new URL(req.url ?? '/', 'http://proxy').pathname);
    requests.push(raw);
    if (options.hang === true) return;
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (options.status !== undefined) return send(options.status, 'proxy failure');
    const m = /^\/(.+?)\/(?:@v\/(list|.+\.(info|mod|zip))|@latest)$/.exec(raw);
    if (!m?.[1]) return send(404, 'not found');
    const path = unescape(m[1]);
    const module = options.modules?.[path];
    if (module === undefined) return send(404, `not found: module ${path}: no matching versions`);
    if (module.status !== undefined) return send(module.status, `not found: ${path}`);
    const versions = Object.keys(module.versions);
    if (m[2] === 'list') return send(200, versions.map((v) => `${v}\n`).join(''));
    const version = m[2] === undefined ? (module.latest ?? versions[versions.length - 1] ?? '') : unescape(m[2].slice(0, m[2].lastIndexOf('.')));
    const v = module.versions[version];
    if (v === undefined) return send(404, `not found: ${path}@${version}: invalid version: unknown revision`);
    if (m[3] === 'mod') return send(200, v.mod ?? `module ${path}\n`);
    if (m[3] === 'zip') return send(404, 'zips are not served here');
    return send(200, JSON.stringify({ Version: version, Time: v.time, ...(v.origin ? { Origin: v.origin } : {}) }), 'application/json');
  };
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
