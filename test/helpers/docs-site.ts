import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One resource of the fixture site: a body with a content type, or a redirect, or any status. */
export interface SiteResource {
  readonly status?: number;
  readonly type?: string;
  readonly body?: string | Buffer;
  readonly location?: string;
}

/**
 * A local documentation site over plain HTTP on 127.0.0.1 (so a crawler's https attempt fails
 * the TLS handshake and falls back to http). Resources are keyed by path and query exactly as
 * requested; `{origin}` in bodies and locations is replaced by the site's origin. Every request
 * is recorded.
 */
export class DocsSite {
  readonly requests: { path: string; userAgent: string }[] = [];
  private readonly events = new EventEmitter();
  /** Requests under these path prefixes are answered only once their gate opens. */
  private readonly gates = new Map<string, Promise<void>>();
  private constructor(
    private readonly server: Server,
    readonly resources: Map<string, SiteResource>,
  ) {}

  static async start(resources: Record<string, SiteResource> = {}): Promise<DocsSite> {
    const map = new Map(Object.entries(resources));
    let site: DocsSite | null = null;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => void site?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = new DocsSite(server, map);
    return site;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  get origin(): string {
    return `http://${this.host}`;
  }

  /** Holds requests under `prefix` until the returned function is called. */
  hold(prefix: string): () => void {
    let open = (): void => undefined;
    this.gates.set(prefix, new Promise<void>((resolve) => (open = resolve)));
    return () => {
      this.gates.delete(prefix);
      open();
    };
  }

  /** Resolves once `path` has been requested (at once if it was already). */
  async requestedOnce(path: string): Promise<void> {
    while (!this.requests.some((r) => r.path === path)) await once(this.events, 'request');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/';
    this.requests.push({ path, userAgent: req.headers['user-agent'] ?? '' });
    this.events.emit('request');
    for (const [prefix, gate] of this.gates) if (path.startsWith(prefix)) await gate;
    const resource = this.resources.get(path);
    if (!resource) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    const fill = (text: string): string => text.replaceAll('{origin}', this.origin);
    const headers: Record<string, string> = { 'content-type': resource.type ?? 'text/html; charset=utf-8' };
    if (resource.location !== undefined) headers['location'] = fill(resource.location);
    const body = typeof resource.body === 'string' ? fill(resource.body) : (resource.body ?? '');
    res.writeHead(resource.status ?? (resource.location === undefined ? 200 : 302), headers).end(body);
  }

  /** Paths requested so far (with their query). */
  requested(): string[] {
    return this.requests.map((r) => r.path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A small HTML page with a title, a heading, text and links. */
export function htmlPage(title: string, text: string, links: readonly string[] = []): SiteResource {
  const anchors = links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  return {
    body: `<!doctype html><html><head><title>${title}</title><style>body{color:red}</style><script>var tracking = 1;</script></head><body><nav><a href="/">home</a></nav><main><h1>${title}</h1><p>${text}</p><ul>${anchors}</ul></main></body></html>`,
  };
}
