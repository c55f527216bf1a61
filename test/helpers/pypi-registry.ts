import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One release as the PyPI JSON API describes it. */
export interface FixtureRelease {
  readonly requiresDist?: string[];
  readonly yanked?: boolean;
  readonly licenseExpression?: string | null;
  readonly license?: string | null;
  readonly classifiers?: string[];
  readonly summary?: string;
}

export interface PypiRegistryOptions {
  readonly projects?: Record<string, Record<string, FixtureRelease>>;
  /** Answer every request with this status (a failing registry). */
  readonly status?: number;
  /** Accept requests and never answer them. */
  readonly hang?: boolean;
}

export interface PypiRegistry {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

/** A local PyPI speaking the JSON API: `/pypi/<name>/json` and `/pypi/<name>/<version>/json`. */
export async function startPypiRegistry(options: PypiRegistryOptions = {}): Promise<PypiRegistry> {
  const requests: string[] = [];
  const projects = new Map(Object.entries(options.projects ?? {}).map(([name, releases]) => [name.toLowerCase().replace(/[-_.]+/g, '-'), { name, releases }]));
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    if (options.hang === true) return;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (options.status !== undefined) return send(options.status, { message: 'failing' });
    const match = /^\/pypi\/([^/]+)(?:\/([^/]+))?\/json$/.exec(path);
    const project = match?.[1] ? projects.get(match[1]) : undefined;
    if (!match || !project) return send(404, { message: 'Not Found' });
    const info = (version: string, release: FixtureRelease) => ({
      name: project.name,
      version,
      summary: release.summary ?? `${project.name} package`,
      license_expression: release.licenseExpression ?? null,
      license: release.license ?? null,
      classifiers: release.classifiers ?? [],
      requires_dist: release.requiresDist ?? null,
      project_urls: { Source: `https://git.example.test/${project.name}` },
      author: 'Ada',
      yanked: release.yanked === true,
    });
    const file = (version: string, release: FixtureRelease) => ({
      filename: `${project.name}-${version}.tar.gz`,
      packagetype: 'sdist',
      digests: { sha256: 'ab'.repeat(32) },
      yanked: release.yanked === true,
    });
    if (match[2] === undefined) {
      const versions = Object.keys(project.releases);
      const latest = versions.at(-1) ?? '';
      return send(200, {
        info: info(latest, project.releases[latest] ?? {}),
        releases: Object.fromEntries(Object.entries(project.releases).map(([v, r]) => [v, [file(v, r)]])),
      });
    }
    const release = project.releases[match[2]];
    if (!release) return send(404, { message: 'Not Found' });
    send(200, { info: info(match[2], release), urls: [file(match[2], release)] });
  };
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
