import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Composer v2 repository speaking Packagist's metadata protocol over HTTP on 127.0.0.1:
 * `GET /p2/<vendor>/<name>.json` (tagged versions) and `GET /p2/<vendor>/<name>~dev.json`
 * (branches), each `{"packages": {"<vendor>/<name>": [...]}, "minified": "composer/2.0"}`, the
 * version list newest first and minified as Packagist serves it (Composer's MetadataMinifier: the
 * first version whole, each later one only the keys that changed, `"__unset"` for a removed key).
 * An unknown package is a 404.
 */

export interface FixtureComposerVersion {
  readonly version: string;
  readonly description?: string;
  readonly homepage?: string;
  readonly license?: string[];
  readonly authors?: { name: string; email?: string; homepage?: string }[];
  readonly source?: { type: string; url: string; reference: string };
  readonly abandoned?: boolean | string;
  readonly require?: Record<string, string>;
}

export interface PackagistRegistryOptions {
  /** Versions of each package, newest first; `dev` ones are served from `~dev.json`. */
  readonly packages?: Record<string, { readonly tagged?: FixtureComposerVersion[]; readonly dev?: FixtureComposerVersion[] }>;
  /** Serve the lists whole (no `minified` key), as a Composer repository may. */
  readonly unminified?: boolean;
  readonly statusFor?: (name: string) => number | null;
  readonly hangFor?: (name: string) => boolean;
  /** Answer a path with this body (200) however malformed: hostile-registry tests. */
  readonly rawFor?: (path: string) => string | undefined;
}

export interface PackagistRegistry {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

function normalized(version: string): string {
  const parts = version.replace(/^v/i, '').split(/[-+]/)[0]?.split('.') ?? [];
  while (parts.length < 4) parts.push('0');
  return parts.join('.');
}

function fullVersion(name: string, v: FixtureComposerVersion): Record<string, unknown> {
  return {
    name,
    description: v.description ?? '',
    keywords: [],
    homepage: v.homepage ?? '',
    version: v.version,
    version_normalized: v.version.startsWith('dev-') || v.version.endsWith('-dev') ? v.version : normalized(v.version),
    license: v.license ?? [],
    authors: v.authors ?? [],
    source: v.source ?? { type: 'git', url: `https://github.com/${name}.git`, reference: '0'.repeat(40) },
    dist: { type: 'zip', url: `https://api.github.com/repos/${name}/zipball/${'0'.repeat(40)}`, reference: '0'.repeat(40), shasum: '' },
    type: 'library',
    support: { source: `https://github.com/${name}/tree/${v.version}` },
    time: '2024-01-15T10:00:00+00:00',
    autoload: { 'psr-4': { 'Acme\\': 'src/' } },
    require: v.require ?? { php: '>=8.1' },
    ...(v.abandoned === undefined ? {} : { abandoned: v.abandoned }),
  };
}

/** Composer's MetadataMinifier::minify. */
function minify(versions: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let last: Record<string, unknown> | null = null;
  for (const v of versions) {
    if (last === null) out.push(v);
    else {
      const diff: Record<string, unknown> = {};
      for (const [k, value] of Object.entries(v)) if (JSON.stringify(last[k]) !== JSON.stringify(value)) diff[k] = value;
      for (const k of Object.keys(last)) if (!(k in v)) diff[k] = '__unset';
      out.push(diff);
    }
    last = v;
  }
  return out;
}

export async function startPackagistRegistry(options: PackagistRegistryOptions = {}): Promise<PackagistRegistry> {
  const requests: string[] = [];
  const arrivals = new EventEmitter();
  const packages = options.packages ?? {};

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    arrivals.emit('request');
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    const raw = options.rawFor?.(path);
    if (raw !== undefined) return send(200, raw);
    const match = /^\/p2\/([^/]+\/[^/~]+)(~dev)?\.json$/.exec(path);
    if (match?.[1] === undefined) return send(404, JSON.stringify({ status: 'error', message: 'Not Found' }));
    const name = decodeURIComponent(match[1]);
    if (options.hangFor?.(name) === true) return;
    const forced = options.statusFor?.(name) ?? null;
    if (forced !== null) return send(forced, JSON.stringify({ status: 'error', message: 'Internal Server Error' }));
    const pkg = packages[name];
    if (pkg === undefined) return send(404, JSON.stringify({ status: 'error', message: 'Not Found' }));
    const list = (match[2] === undefined ? pkg.tagged : pkg.dev) ?? [];
    const versions = list.map((v) => fullVersion(name, v));
    const body = options.unminified === true ? { packages: { [name]: versions } } : { packages: { [name]: minify(versions) }, minified: 'composer/2.0' };
    send(200, JSON.stringify(body));
  };

  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
