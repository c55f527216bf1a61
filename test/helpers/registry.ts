import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadNpmOptions, type NpmOptions } from '../../src/ecosystems/npm/options.js';

/**
 * One version of a fixture package: its manifest fields as the registry would serve them, plus
 * test controls that are not served: `_tarball` (the gzipped tarball bytes), `_tarballStatus`
 * (answer the tarball URL with this status) and `_noTarball` (a dist without a tarball).
 */
export type FixtureVersion = Record<string, unknown> & {
  readonly _tarball?: Buffer;
  readonly _tarballStatus?: number;
  readonly _noTarball?: boolean;
};

function served(fields: FixtureVersion): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !k.startsWith('_')));
}

export interface FixturePackage {
  readonly versions: Record<string, FixtureVersion>;
  readonly distTags?: Record<string, string>;
}

export interface FixtureRegistryOptions {
  readonly packages?: Record<string, FixturePackage>;
  /** Serves any package@version not in `packages` with this manifest (null: 404). */
  readonly fallback?: (name: string, version: string) => FixtureVersion | null;
  /** Delay of every answer. */
  readonly latencyMs?: number;
  /** Status to answer for a package instead of its document (e.g. 500 to fail it). */
  readonly statusFor?: (name: string) => number | null;
  /** Answer 404 to `GET /<name>/<version>`, as registries without that endpoint do. */
  readonly noVersionEndpoint?: boolean;
  /** A document to serve as a package's packument instead of the one built from `packages` (malformed ones included). */
  readonly rawPackument?: (name: string) => unknown;
  /** Holds the answer to a path until the returned promise settles (undefined: answer at once). */
  readonly holdFor?: (path: string) => Promise<void> | undefined;
}

export interface FixtureRegistry {
  readonly url: string;
  /** Paths requested so far. */
  readonly requests: string[];
  /** The `authorization` header of each request so far (undefined where none was sent), in order. */
  readonly authorizations: (string | undefined)[];
  /** Most requests answered at the same time so far. */
  readonly maxConcurrent: () => number;
  /** Resolves once a path matching `match` has been requested (at once if it was already). */
  requested(match: (path: string) => boolean): Promise<void>;
  /** npm options pointing at this registry, as the user's npm configuration would. */
  npmOptions(): Promise<NpmOptions>;
  close(): Promise<void>;
}

function integrityOf(name: string, version: string): string {
  return `sha512-${createHash('sha512').update(`${name}@${version}`).digest('base64')}`;
}

/** A registry speaking the npm registry protocol (packuments and version documents) over HTTP. */
export async function startFixtureRegistry(options: FixtureRegistryOptions = {}): Promise<FixtureRegistry> {
  const requests: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const arrivals = new EventEmitter();
  let base = '';
  const tarballPath = (name: string, version: string): string => `/${name}/-/${name.split('/').pop() ?? name}-${version}.tgz`;
  const versionDoc = (name: string, version: string, fields: FixtureVersion): Record<string, unknown> => ({
    name,
    version,
    ...served(fields),
    dist: {
      ...(fields._noTarball === true ? {} : { tarball: `${base}${tarballPath(name, version)}` }),
      integrity: fields._tarball ? `sha512-${createHash('sha512').update(fields._tarball).digest('base64')}` : integrityOf(name, version),
    },
  });
  const lookup = (name: string): FixturePackage | null => {
    const known = options.packages?.[name];
    if (known) return known;
    return null;
  };
  let active = 0;
  let peak = 0;
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    active++;
    peak = Math.max(peak, active);
    res.once('close', () => active--);
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(path);
    authorizations.push(req.headers.authorization);
    arrivals.emit('request');
    await options.holdFor?.(path);
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    const parts = path.slice(1).split('/');
    const scoped = parts[0]?.startsWith('@') === true;
    const name = scoped ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? '');
    const version = parts[scoped ? 2 : 1];
    const forced = options.statusFor?.(name) ?? null;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (forced !== null) return send(forced, { error: 'forced' });
    const raw = version === undefined ? options.rawPackument?.(name) : undefined;
    if (raw !== undefined) return send(200, raw);
    if (version === '-') {
      const fileName = parts[scoped ? 3 : 2] ?? '';
      const pkg = lookup(name);
      const match = Object.entries(pkg?.versions ?? {}).find(([v]) => tarballPath(name, v).endsWith(`/${fileName}`));
      const fields = match?.[1];
      if (fields?._tarballStatus !== undefined) return send(fields._tarballStatus, { error: 'tarball status forced' });
      if (!fields?._tarball) return send(404, { error: 'no tarball' });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(fields._tarball.length) });
      res.end(fields._tarball);
      return;
    }
    const pkg = lookup(name);
    if (version !== undefined && options.noVersionEndpoint === true) return send(404, { error: 'no such endpoint' });
    if (version !== undefined) {
      const fields = pkg?.versions[version] ?? (pkg ? null : (options.fallback?.(name, version) ?? null));
      return fields === null ? send(404, { error: 'not found' }) : send(200, versionDoc(name, version, fields));
    }
    if (!pkg) return send(404, { error: 'not found' });
    const versions = Object.fromEntries(Object.entries(pkg.versions).map(([v, f]) => [v, versionDoc(name, v, f)]));
    const latest = Object.keys(pkg.versions).at(-1) ?? '0.0.0';
    send(200, { name, 'dist-tags': pkg.distTags ?? { latest }, versions });
  };
  const server = createServer((req, res) => void handler(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    authorizations,
    maxConcurrent: () => peak,
    requested: async (match) => {
      while (!requests.some(match)) await once(arrivals, 'request');
    },
    // No retries: tests that make the registry fail want the failure at once.
    npmOptions: async () => ({ ...(await loadNpmOptions()), registry: `${base}/`, retry: { retries: 0 } }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A fallback answering every coordinate with a plain MIT manifest (jobs tests need no more). */
export const anyPackage = (name: string, version: string): FixtureVersion => ({
  license: 'MIT',
  description: `${name} ${version} from the fixture registry`,
});
