import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A registry speaking the crates.io web API over HTTP on 127.0.0.1: `GET /api/v1/crates/<name>`
 * (`{ crate, versions, keywords, categories }`), `GET /api/v1/crates/<name>/<version>`
 * (`{ version }`) and `GET /api/v1/crates/<name>/<version>/dependencies` (`{ dependencies }`), in
 * the shapes crates.io answers, 404 with `{ errors: [{ detail }] }`.
 */

/** A dependency as `/api/v1/crates/<name>/<version>/dependencies` lists it (`crate_id` is the real name). */
export interface FixtureCrateDependency {
  readonly crate_id: string;
  readonly req: string;
  readonly kind?: 'normal' | 'dev' | 'build';
  readonly optional?: boolean;
  readonly default_features?: boolean;
  readonly features?: string[];
  readonly target?: string | null;
}

export interface FixtureCrateVersion {
  readonly features?: Record<string, string[]>;
  readonly dependencies?: FixtureCrateDependency[];
  readonly license?: string | null;
  readonly description?: string | null;
  readonly homepage?: string | null;
  readonly repository?: string | null;
  readonly yanked?: boolean;
  readonly yank_message?: string | null;
}

export interface FixtureCrate {
  readonly description?: string | null;
  readonly homepage?: string | null;
  readonly repository?: string | null;
  readonly versions: Record<string, FixtureCrateVersion>;
}

export interface CratesRegistryOptions {
  readonly crates?: Record<string, FixtureCrate>;
  /** Answer with this status instead (e.g. 500) for a crate. */
  readonly statusFor?: (name: string) => number | null;
  /** Never answer requests for this crate (the client's deadline must end them). */
  readonly hangFor?: (name: string) => boolean;
  /** Answer a path with this JSON body (200) instead, however malformed: hostile-registry tests. */
  readonly rawFor?: (path: string) => unknown;
  /** Serve version documents without description/homepage/repository, as older registries did. */
  readonly legacyVersionDocs?: boolean;
}

export interface CratesRegistry {
  readonly url: string;
  readonly requests: string[];
  /** User-Agent headers received. */
  readonly userAgents: string[];
  requested(match: (path: string) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startCratesRegistry(options: CratesRegistryOptions = {}): Promise<CratesRegistry> {
  const requests: string[] = [];
  const userAgents: string[] = [];
  const arrivals = new EventEmitter();
  const crates = options.crates ?? {};
  let nextId = 1;

  const versionDoc = (name: string, num: string, v: FixtureCrateVersion, krate: FixtureCrate): Record<string, unknown> => ({
    id: nextId++,
    crate: name,
    num,
    dl_path: `/api/v1/crates/${name}/${num}/download`,
    readme_path: `/api/v1/crates/${name}/${num}/readme`,
    updated_at: '2024-03-01T10:00:00.000000Z',
    created_at: '2024-03-01T10:00:00.000000Z',
    downloads: 1234,
    features: v.features ?? {},
    yanked: v.yanked ?? false,
    yank_message: v.yank_message ?? null,
    lib_links: null,
    license: v.license ?? null,
    links: {
      dependencies: `/api/v1/crates/${name}/${num}/dependencies`,
      version_downloads: `/api/v1/crates/${name}/${num}/downloads`,
      authors: `/api/v1/crates/${name}/${num}/authors`,
    },
    crate_size: 4096,
    published_by: { id: 1, login: 'publisher', name: 'A Publisher', avatar: null, url: 'https://github.com/publisher' },
    audit_actions: [],
    checksum: '0'.repeat(64),
    rust_version: '1.70',
    has_lib: true,
    bin_names: [],
    edition: '2021',
    ...(options.legacyVersionDocs === true
      ? {}
      : {
          description: v.description ?? krate.description ?? null,
          homepage: v.homepage ?? krate.homepage ?? null,
          documentation: null,
          repository: v.repository ?? krate.repository ?? null,
        }),
  });

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    userAgents.push(req.headers['user-agent'] ?? '');
    arrivals.emit('request');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const raw = options.rawFor?.(path);
    if (raw !== undefined) return send(200, raw);
    const match = /^\/api\/v1\/crates\/([^/]+)(?:\/([^/]+))?(\/dependencies)?$/.exec(path);
    if (match?.[1] === undefined) return send(404, { errors: [{ detail: 'Not Found' }] });
    const name = decodeURIComponent(match[1]);
    const version = match[2] === undefined ? null : decodeURIComponent(match[2]);
    if (options.hangFor?.(name) === true) return;
    const forced = options.statusFor?.(name) ?? null;
    if (forced !== null) return send(forced, { errors: [{ detail: 'forced' }] });
    const krate = crates[name];
    if (krate === undefined) return send(404, { errors: [{ detail: `crate \`${name}\` does not exist` }] });
    if (version !== null) {
      const v = krate.versions[version];
      if (v === undefined) return send(404, { errors: [{ detail: `crate \`${name}\` does not have a version \`${version}\`` }] });
      if (match[3] !== undefined) {
        const dependencies = (v.dependencies ?? []).map((d, i) => ({
          id: i + 1,
          version_id: 1,
          crate_id: d.crate_id,
          req: d.req,
          optional: d.optional ?? false,
          default_features: d.default_features ?? true,
          features: d.features ?? [],
          target: d.target ?? null,
          kind: d.kind ?? 'normal',
          downloads: 0,
        }));
        return send(200, { dependencies });
      }
      return send(200, { version: versionDoc(name, version, v, krate) });
    }
    const versions = Object.entries(krate.versions).map(([num, v]) => versionDoc(name, num, v, krate));
    send(200, {
      crate: {
        id: name,
        name,
        description: krate.description ?? null,
        homepage: krate.homepage ?? null,
        documentation: null,
        repository: krate.repository ?? null,
        max_version: Object.keys(krate.versions).at(-1) ?? '0.0.0',
        downloads: 1234,
        links: { owners: `/api/v1/crates/${name}/owners` },
      },
      versions,
      keywords: [],
      categories: [],
    });
  };

  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    userAgents,
    requested: async (match) => {
      while (!requests.some(match)) await once(arrivals, 'request');
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
