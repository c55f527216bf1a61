import { request, type Dispatcher } from 'undici';

/**
 * A bounded download of a registry archive: the whole body in memory, never more than
 * `maxBytes` (a larger answer fails the download instead of growing a buffer without end).
 */

export type DownloadResult =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'gone'; readonly status: number }
  | { readonly kind: 'failed'; readonly timedOut: boolean; readonly cause: unknown };

export interface DownloadOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /**
   * The dispatcher that follows redirects under the address policy (src/net/dispatchers.ts):
   * registries answer archive downloads with redirects to their storage. Always given, never the
   * process-global one.
   */
  readonly dispatcher: Dispatcher;
}

export async function downloadBytes(url: string, options: DownloadOptions): Promise<DownloadResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    const { statusCode, body } = await request(url, {
      method: 'GET',
      signal: deadline,
      headers: { 'user-agent': 'pkgscope' },
      dispatcher: options.dispatcher,
    });
    if (statusCode === 404 || statusCode === 410 || statusCode === 451) {
      await body.dump();
      return { kind: 'gone', status: statusCode };
    }
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump();
      return { kind: 'failed', timedOut: false, cause: new Error(`registry answered ${statusCode}`) };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxBytes) {
        body.destroy();
        return { kind: 'failed', timedOut: false, cause: new Error(`archive over ${options.maxBytes} bytes`) };
      }
      chunks.push(chunk);
    }
    return { kind: 'ok', bytes: Buffer.concat(chunks) };
  } catch (error) {
    return { kind: 'failed', timedOut: deadline.aborted, cause: error };
  }
}
