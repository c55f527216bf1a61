import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gem server speaking the RubyGems.org API v2 over HTTP on 127.0.0.1:
 * `GET /api/v2/rubygems/<name>/versions/<version>.json` answers the version's document in the
 * shape rubygems.org answers (the gem's fields merged with the version's: `name`, `version`,
 * `info`, `licenses`, `authors`, `metadata`, `homepage_uri`, `source_code_uri`, `yanked`, `sha`,
 * `dependencies`, …); an unknown gem or version is a plain-text 404 ("This version could not be
 * found."), as rubygems.org answers.
 */

export interface FixtureGemVersion {
  readonly licenses?: string[] | null;
  readonly info?: string;
  readonly authors?: string;
  readonly homepage_uri?: string | null;
  readonly source_code_uri?: string | null;
  readonly metadata?: Record<string, string>;
  readonly yanked?: boolean;
  readonly platform?: string;
}

export interface RubygemsRegistryOptions {
  readonly gems?: Record<string, Record<string, FixtureGemVersion>>;
  /** Answer with this status instead (e.g. 500) for a gem. */
  readonly statusFor?: (name: string) => number | null;
  /** Never answer requests for this gem (the client's deadline must end them). */
  readonly hangFor?: (name: string) => boolean;
  /** Answer a path with this body (200, `application/json`) however malformed: hostile-registry tests. */
  readonly rawFor?: (path: string) => string | undefined;
}

export interface RubygemsRegistry {
  readonly url: string;
  readonly requests: string[];
  requested(match: (path: string) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startRubygemsRegistry(options: RubygemsRegistryOptions = {}): Promise<RubygemsRegistry> {
  const requests: string[] = [];
  const arrivals = new EventEmitter();
  const gems = options.gems ?? {};

  const versionDoc = (name: string, number: string, v: FixtureGemVersion): Record<string, unknown> => ({
    name,
    downloads: 123456,
    version: number,
    version_created_at: '2024-02-01T10:00:00.000Z',
    version_downloads: 4321,
    platform: v.platform ?? 'ruby',
    authors: v.authors ?? 'A Maintainer',
    info: v.info ?? '',
    licenses: v.licenses === undefined ? [] : v.licenses,
    metadata: v.metadata ?? {},
    yanked: v.yanked ?? false,
    sha: 'a'.repeat(64),
    spec_sha: 'b'.repeat(64),
    project_uri: `https://rubygems.org/gems/${name}`,
    gem_uri: `https://rubygems.org/gems/${name}-${number}.gem`,
    homepage_uri: v.homepage_uri ?? null,
    wiki_uri: null,
    documentation_uri: null,
    mailing_list_uri: null,
    source_code_uri: v.source_code_uri ?? null,
    bug_tracker_uri: null,
    changelog_uri: null,
    funding_uri: null,
    dependencies: { development: [], runtime: [] },
    built_at: '2024-02-01T00:00:00.000Z',
    created_at: '2024-02-01T10:00:00.000Z',
    description: v.info ?? '',
    downloads_count: 4321,
    number,
    summary: v.info ?? '',
    rubygems_version: '>= 0',
    ruby_version: '>= 2.7.0',
    prerelease: false,
    requirements: [],
  });

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    arrivals.emit('request');
    const raw = options.rawFor?.(path);
    if (raw !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(raw);
      return;
    }
    const notFound = (): void => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('This version could not be found.');
    };
    const match = /^\/api\/v2\/rubygems\/([^/]+)\/versions\/([^/]+)\.json$/.exec(path);
    if (match?.[1] === undefined || match[2] === undefined) return notFound();
    const name = decodeURIComponent(match[1]);
    const version = decodeURIComponent(match[2]);
    if (options.hangFor?.(name) === true) return;
    const forced = options.statusFor?.(name) ?? null;
    if (forced !== null) {
      res.writeHead(forced, { 'content-type': 'text/plain' });
      res.end('Internal Server Error');
      return;
    }
    const v = gems[name]?.[version];
    if (v === undefined) return notFound();
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(versionDoc(name, version, v)));
  };

  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
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
