import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One local server answering every package of every benchmark ecosystem after `latencyMs`, in each
 * registry's real response shape: crates.io (`/api/v1/crates/<name>/<version>`), PyPI
 * (`/pypi/<name>/<version>/json`) and a Go module proxy under `/go` (`.info`, `.mod`, `@latest`).
 */
export async function startPolyglotRegistry(latencyMs: number): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const send = (status: number, body: unknown, type = 'application/json'): void => {
      setTimeout(() => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      }, latencyMs);
    };
    let m = /^\/api\/v1\/crates\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      send(200, { version: { crate: m[1], num: m[2], license: 'MIT OR Apache-2.0', description: `The ${m[1]} crate`, homepage: null, repository: `https://git.example.test/${m[1]}`, yanked: false } });
      return;
    }
    m = /^\/pypi\/([^/]+)\/([^/]+)\/json$/.exec(path);
    if (m) {
      send(200, { info: { name: m[1], version: m[2], license_expression: 'BSD-3-Clause', summary: `The ${m[1]} package`, home_page: null, project_urls: { Source: `https://git.example.test/${m[1]}` }, author: 'Ada', classifiers: [] }, urls: [] });
      return;
    }
    m = /^\/go\/(.+)\/@v\/(.+)\.info$/.exec(path);
    if (m) {
      send(200, { Version: m[2], Time: '2024-01-01T00:00:00Z', Origin: { VCS: 'git', URL: `https://git.example.test/${m[1]}` } });
      return;
    }
    m = /^\/go\/(.+)\/@latest$/.exec(path);
    if (m) {
      send(200, { Version: 'v9.0.0', Time: '2024-01-01T00:00:00Z' });
      return;
    }
    m = /^\/go\/(.+)\/@v\/(.+)\.mod$/.exec(path);
    if (m) {
      send(200, `module ${m[1]}\n\ngo 1.21\n`, 'text/plain');
      return;
    }
    send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
