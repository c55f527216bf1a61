import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** A packument as recorded: the registry's name and dist-tags, and only the versions the corpus uses. */
export interface RecordedPackument {
  readonly name: string;
  readonly 'dist-tags': Readonly<Record<string, string>>;
  readonly versions: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** test/fixtures/npm-recorded/corpus.json.gz (written by scripts/record-npm-metadata.js). */
export interface NpmRecording {
  readonly recordedAt: string;
  /** Per corpus set: the files read from it and the npm coordinates (`name@version`) its analysis enriches. */
  readonly sets: Readonly<Record<string, { readonly files: readonly string[]; readonly coordinates: readonly string[] }>>;
  /** Coordinates the registry did not know when they were recorded. */
  readonly missing: readonly string[];
  readonly packuments: Readonly<Record<string, RecordedPackument>>;
}

export const RECORDING_FILE = fileURLToPath(new URL('../fixtures/npm-recorded/corpus.json.gz', import.meta.url));
/** Where the shared lockfile corpus lives (read by path, never copied into the project). */
export const CORPUS_DIR = fileURLToPath(new URL('../../../shared/corpus', import.meta.url));

let recording: NpmRecording | undefined;

/** The recording, read once per test file. */
export function loadRecording(): NpmRecording {
  recording ??= JSON.parse(gunzipSync(readFileSync(RECORDING_FILE)).toString('utf8')) as NpmRecording;
  return recording;
}

/** The fields npm's abbreviated ("corgi") documents keep of a version: no author, license, repository or description. */
const CORGI_FIELDS = new Set([
  'name', 'version', 'deprecated', 'dependencies', 'optionalDependencies', 'devDependencies', 'bundleDependencies', 'peerDependencies',
  'peerDependenciesMeta', 'bin', 'directories', 'dist', 'engines', '_hasShrinkwrap', 'hasInstallScript', 'cpu', 'os',
]);
const CORGI_TYPE = 'application/vnd.npm.install-v1+json';

export interface RecordedRegistry {
  readonly url: string;
  /** Every request so far: its decoded path and its Accept header. */
  readonly requests: readonly { readonly path: string; readonly accept: string | undefined }[];
  close(): Promise<void>;
}

/**
 * The recorded documents over npm's registry protocol: `GET /<name>` (the packument, abbreviated
 * when the client prefers npm's install document type, as the registry does), `GET /<name>/<version>`
 * and `GET /-/package/<name>/dist-tags`; scoped names arrive as `@scope%2fname` or `@scope/name`.
 * The recording's `{registry}` placeholder becomes this server's address.
 */
export async function startRecordedRegistry(source: NpmRecording = loadRecording()): Promise<RecordedRegistry> {
  const requests: { path: string; accept: string | undefined }[] = [];
  let base = '';
  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(body).replaceAll('{registry}', base));
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push({ path, accept: req.headers.accept });
    if (req.method !== 'GET') return send(res, 405, { error: 'method not allowed' });
    const tags = /^\/-\/package\/(.+)\/dist-tags$/.exec(path);
    if (tags) {
      const packument = source.packuments[tags[1] ?? ''];
      return packument ? send(res, 200, packument['dist-tags']) : send(res, 404, { error: 'not found' });
    }
    const parts = path.slice(1).split('/');
    const scoped = parts[0]?.startsWith('@') === true;
    const name = scoped ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? '');
    const version = parts[scoped ? 2 : 1];
    const packument = source.packuments[name];
    if (!packument || parts.length > (scoped ? 3 : 2)) return send(res, 404, { error: 'not found' });
    if (version !== undefined) {
      const doc = packument.versions[version];
      return doc ? send(res, 200, doc) : send(res, 404, { error: 'version not found' });
    }
    if (!(req.headers.accept ?? '').includes(CORGI_TYPE)) return send(res, 200, packument);
    const versions = Object.fromEntries(
      Object.entries(packument.versions).map(([v, doc]) => [v, Object.fromEntries(Object.entries(doc).filter(([k]) => CORGI_FIELDS.has(k)))]),
    );
    send(res, 200, { name, 'dist-tags': packument['dist-tags'], modified: source.recordedAt, versions }, CORGI_TYPE);
  };
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
