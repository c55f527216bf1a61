import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real OSV data of the repository's shared folder (Go and PyPI in the bulk layout). */
export const SHARED_ADVISORIES = fileURLToPath(new URL('../../../shared/advisories', import.meta.url));

export interface ServedRequest {
  readonly path: string;
  readonly status: number;
  readonly ifNoneMatch: string | null;
  readonly ifModifiedSince: string | null;
}

export interface AdvisoryServer {
  readonly url: string;
  readonly requests: ServedRequest[];
  /** Serves `body` (or answers `status`) at `path` instead of the shared folder's file; null restores it. */
  override(path: string, answer: Buffer | number | null): void;
  close(): Promise<void>;
}

/**
 * An OSV bulk layout over HTTP, as OSV's bucket answers it: files of SHARED_ADVISORIES with a
 * strong ETag and Last-Modified, 304 to a matching If-None-Match (or, without one, to an
 * If-Modified-Since not older than the file), 404 for anything else.
 */
export async function startAdvisoryServer(root = SHARED_ADVISORIES): Promise<AdvisoryServer> {
  const requests: ServedRequest[] = [];
  const overrides = new Map<string, Buffer | number>();
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const override = overrides.get(path);
    if (typeof override === 'number') {
      res.writeHead(override).end();
      return override;
    }
    let body: Buffer;
    let modified: Date;
    if (override !== undefined) {
      body = override;
      modified = new Date('2026-01-01T00:00:00Z');
    } else {
      const file = join(root, ...path.split('/').filter((s) => s !== '' && s !== '..'));
      try {
        const info = await stat(file);
        if (!info.isFile()) throw new Error('not a file');
        body = await readFile(file);
        modified = info.mtime;
      } catch {
        res.writeHead(404).end();
        return 404;
      }
    }
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    const lastModified = modified.toUTCString();
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    const notModified =
      ifNoneMatch !== undefined ? ifNoneMatch === etag : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Math.floor(modified.getTime() / 1000) * 1000;
    if (notModified) {
      res.writeHead(304, { etag, 'last-modified': lastModified }).end();
      return 304;
    }
    res.writeHead(200, { 'content-type': 'application/zip', 'content-length': body.length, etag, 'last-modified': lastModified }).end(body);
    return 200;
  };
  const server = createServer((req, res) => {
    answer(req, res).then(
      (status) =>
        requests.push({
          path: req.url ?? '',
          status,
          ifNoneMatch: req.headers['if-none-match'] ?? null,
          ifModifiedSince: req.headers['if-modified-since'] ?? null,
        }),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    override: (path, value) => {
      if (value === null) overrides.delete(path);
      else overrides.set(path, value);
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
