import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Maven repository in the layout of https://maven.apache.org/repository/layout.html on
 * 127.0.0.1: `/<group as dirs>/<artifact>/<version>/<artifact>-<version>.pom` and
 * `/<group as dirs>/<artifact>/maven-metadata.xml`, from POMs and version lists given by coordinates.
 */

export interface MavenRepositoryOptions {
  /** POM texts by `group:artifact:version`. */
  readonly poms?: Readonly<Record<string, string>>;
  /** Versions maven-metadata.xml lists, by `group:artifact`. */
  readonly versions?: Readonly<Record<string, readonly string[]>>;
  /** Any other file by its path below the root (`/org/s/snap/2.0-SNAPSHOT/maven-metadata.xml`). */
  readonly files?: Readonly<Record<string, string>>;
  /** Answer every request with this status (a failing repository). */
  readonly status?: number;
  /** Accept requests and never answer them (a repository that hangs). */
  readonly hang?: boolean;
}

export interface FixtureMavenRepository {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

function pathOf(coordinate: string, file: 'pom' | 'metadata'): string {
  const [g = '', a = '', v = ''] = coordinate.split(':');
  const dirs = `/${g.split('.').join('/')}/${a}`;
  return file === 'metadata' ? `${dirs}/maven-metadata.xml` : `${dirs}/${v}/${a}-${v}.pom`;
}

export function mavenMetadataXml(coordinate: string, versions: readonly string[]): string {
  const [g = '', a = ''] = coordinate.split(':');
  return `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>${g}</groupId>
  <artifactId>${a}</artifactId>
  <versioning>
    <latest>${versions[versions.length - 1] ?? ''}</latest>
    <versions>
${versions.map((v) => `      <version>${v}</version>`).join('\n')}
    </versions>
    <lastUpdated>20240101000000</lastUpdated>
  </versioning>
</metadata>
`;
}

export async function startMavenRepository(options: MavenRepositoryOptions = {}): Promise<FixtureMavenRepository> {
  const files = new Map<string, string>();
  for (const [c, text] of Object.entries(options.poms ?? {})) files.set(pathOf(c, 'pom'), text);
  for (const [c, versions] of Object.entries(options.versions ?? {})) files.set(pathOf(c, 'metadata'), mavenMetadataXml(c, versions));
  for (const [path, text] of Object.entries(options.files ?? {})) files.set(path, text);
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://repo').pathname).replace(/^\/maven2/, '');
    requests.push(path);
    if (options.hang === true) return;
    const body = options.status === undefined ? files.get(path) : undefined;
    const status = options.status ?? (body === undefined ? 404 : 200);
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(body ?? 'not found');
  };
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/maven2`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A POM in the real shape (namespace, modelVersion), from its coordinates and inner XML. */
export function pomXml(coordinate: string, inner = ''): string {
  const [g = '', a = '', v = ''] = coordinate.split(':');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${g}</groupId>
  <artifactId>${a}</artifactId>
  <version>${v}</version>
${inner}
</project>
`;
}

/** `<dependency>` elements from `g:a:v[:scope]` strings, with extra inner XML per item. */
export function deps(...items: (string | [string, string])[]): string {
  const one = (item: string | [string, string]): string => {
    const [c, extra] = typeof item === 'string' ? [item, ''] : item;
    const [g = '', a = '', v = '', scope = ''] = c.split(':');
    return `    <dependency><groupId>${g}</groupId><artifactId>${a}</artifactId>${v === '' ? '' : `<version>${v}</version>`}${scope === '' ? '' : `<scope>${scope}</scope>`}${extra}</dependency>`;
  };
  return `  <dependencies>\n${items.map(one).join('\n')}\n  </dependencies>`;
}
