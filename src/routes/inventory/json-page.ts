import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** An answer kept serialised, with its gzip form made once on first demand. */
export class JsonPage {
  private compressed: Buffer | null = null;
  constructor(readonly json: string) {}

  gzip(): Buffer {
    this.compressed ??= gzipSync(this.json, { level: 6 });
    return this.compressed;
  }
}

/** Kept pages up to a total of serialised bytes; the oldest kept go first. */
export class PageCache {
  private readonly pages = new Map<string, JsonPage>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): JsonPage | undefined {
    return this.pages.get(key);
  }

  set(key: string, page: JsonPage): void {
    const replaced = this.pages.get(key);
    if (replaced !== undefined) {
      this.pages.delete(key);
      this.bytes -= replaced.json.length;
    }
    this.pages.set(key, page);
    this.bytes += page.json.length;
    for (const [k, v] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.pages.delete(k);
      this.bytes -= v.json.length;
    }
  }
}

const GZIP_LISTED = /(?:^|,)[ \t]*(?:gzip|x-gzip|\*)[ \t]*(?:,|$)/i;

/** Whether an Accept-Encoding header admits gzip (with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  // Without parameters every listed coding is accepted: what clients send on every request.
  if (!header.includes(';')) return GZIP_LISTED.test(header);
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Answers over this many bytes go gzip-compressed to clients that accept it. */
const GZIP_FROM_BYTES = 1024;

/**
 * Sends a kept answer: gzip-compressed when the client accepts it and it is large enough to
 * gain (the compressed form is kept with the page, so repeats cost nothing), as is otherwise.
 */
export function sendJsonPage(request: FastifyRequest, reply: FastifyReply, page: JsonPage): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
  if (page.json.length > GZIP_FROM_BYTES && acceptsGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(page.gzip());
  }
  return reply.send(page.json);
}
