import { Transform, type TransformCallback } from 'node:stream';
import { errorCodes, type FastifyReply, type FastifyRequest } from 'fastify';
import type { App, RoutePlugin } from '../http/app.js';
import { ProblemError } from '../http/problems.js';
import { BudgetExceeded, BudgetPool, PoolSaturated, type Reply } from '../threads/budget-pool.js';
import { JSON_END, JSON_NEXT, JSON_READY, parseJsonBody, type JsonParsed, type JsonPiece, type JsonTask } from '../threads/json-worker.js';

/**
 * How many large upload bodies one process reads and parses at once. A JSON upload costs several
 * times its size while it is parsed (the text, the string, the objects), so a few concurrent
 * 56 MiB bodies took an API past 1 GB; past the bound a request waits briefly for a slot, then
 * is a 503 with Retry-After. A slot is held from the body's first large byte until the response
 * ends (the parsed files live that long), and freed if the client goes away.
 */
export interface UploadGateConfig {
  readonly uploadLargeBodyBytes: number;
  readonly uploadLargeConcurrency: number;
  readonly uploadLargeWaitMs: number;
}

/** Seconds a client is told to wait: the others' bodies are read and parsed by then, most likely. */
const RETRY_AFTER_SECONDS = '2';

/** JSON bodies over this are parsed on a thread: JSON.parse of a few MiB already holds the event loop for tens of ms. */
const THREAD_PARSE_BYTES = 512 * 1024;

interface ThreadParse {
  readonly result: Promise<JsonParsed>;
  /** Pieces of the long strings the thread took out of its result, in order. */
  readonly pieces: string[];
  /** Sends a chunk of the body (moved to the thread, not copied), or JSON_END. */
  send(message: Uint8Array<ArrayBuffer> | typeof JSON_END): void;
  abort(): void;
}

export class UploadGate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly parser: BudgetPool<JsonTask, JsonParsed>;

  constructor(private readonly config: UploadGateConfig) {
    this.parser = new BudgetPool<JsonTask, JsonParsed>({
      worker: new URL(`../threads/json-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
      name: 'json',
      maxThreads: config.uploadLargeConcurrency,
      // Large bodies are gated before they get here; the queue is for the middle-sized ones.
      maxQueue: 32,
      budgetMs: 30_000,
      // A 65 MiB body's text (decoded, then flattened by the parse) and its parsed strings come to
      // about 170 MB; with a limit far above that (768) a thread let a body's garbage stand until
      // after the next, and four 56 MiB bodies grew the API by 570 MB rather than 420.
      maxHeapMb: 384,
    });
  }

  /**
   * The JSON body parser of the upload routes. A body over THREAD_PARSE_BYTES goes to a JSON
   * thread chunk by chunk as it arrives (copying it whole on this thread, or parsing it here,
   * held the event loop for a second per 56 MiB on a loaded machine); smaller ones parse here.
   */
  readonly parseJson = async (request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<unknown> => {
    const limit = request.routeOptions.bodyLimit;
    const head: Buffer[] = [];
    let size = 0;
    let thread: ThreadParse | null = null;
    try {
      for await (const chunk of payload as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
        if (thread === null && size <= THREAD_PARSE_BYTES) head.push(chunk);
        else {
          thread ??= this.onThread(head.splice(0));
          thread.send(ownBytes(chunk));
        }
      }
    } catch (error) {
      thread?.abort();
      throw error;
    }
    let parsed: JsonParsed;
    if (thread === null) parsed = parseJsonBody(Buffer.concat(head));
    else {
      thread.send(JSON_END);
      try {
        parsed = await thread.result;
      } catch (error) {
        // A full queue, or a parse over its thread's budget (the machine is overloaded): retry later.
        if (error instanceof PoolSaturated || error instanceof BudgetExceeded) throw busy(this.config);
        throw error;
      }
    }
    if (parsed.ok) return thread === null ? parsed.value : withPieces(parsed, thread.pieces);
    throw new ProblemError('VALIDATION_ERROR', parsed.reason === 'empty' ? 'The request body is empty; a JSON object is required.' : 'The request body is not valid JSON.');
  };

  /** Starts a parse on a JSON thread with the chunks read so far; what is sent before the thread listens waits here. */
  private onThread(first: readonly Buffer[]): ThreadParse {
    const pending: (Uint8Array<ArrayBuffer> | typeof JSON_END)[] = first.map(ownBytes);
    let reply: Reply | null = null;
    const pieces: string[] = [];
    const abort = new AbortController();
    const result = this.parser.run(
      {},
      {
        signal: abort.signal,
        onMessage: (message, answer) => {
          if (isPiece(message)) {
            pieces.push(message.piece);
            answer(JSON_NEXT);
            return;
          }
          if (message !== JSON_READY) return;
          reply = answer;
          for (const queued of pending.splice(0)) post(answer, queued);
        },
      },
    );
    // Awaited once the body is read; a refusal before then must not go unhandled meanwhile.
    result.catch(() => undefined);
    return {
      result,
      pieces,
      send: (message) => (reply === null ? pending.push(message) : post(reply, message)),
      abort: () => abort.abort(),
    };
  }

  close(): Promise<void> {
    return this.parser.close();
  }

  /** Slots in use (for tests and metrics). */
  get inUse(): number {
    return this.held;
  }

  /** Takes a slot, waiting at most the configured time; resolves to the function that frees it. */
  async acquire(): Promise<() => void> {
    if (this.held >= this.config.uploadLargeConcurrency) await this.wait();
    this.held++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.held--;
      this.waiting.shift()?.();
    };
  }

  private wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(wake);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(busy(this.config));
      }, this.config.uploadLargeWaitMs);
      this.waiting.push(wake);
    });
  }

  /** Whether a body of this many bytes counts as large. */
  isLarge(bytes: number): boolean {
    return bytes > this.config.uploadLargeBodyBytes;
  }

  /**
   * The `preParsing` hook: a body declared large takes a slot before a byte of it is read; a body
   * of unknown length (chunked) is counted as it flows and takes one when it crosses the bound
   * (held back meanwhile). Multipart is read from the raw request by its plugin, past this
   * stream: a chunked multipart body takes a slot at once.
   */
  readonly preParsing = async (request: FastifyRequest, reply: FastifyReply, payload: NodeJS.ReadableStream): Promise<NodeJS.ReadableStream> => {
    const declared = request.headers['content-length'];
    if (declared !== undefined) {
      if (this.isLarge(Number(declared))) this.holdUntilDone(reply, await this.acquire());
      return payload;
    }
    if (request.headers['transfer-encoding'] === undefined) return payload;
    if (request.isMultipart()) {
      this.holdUntilDone(reply, await this.acquire());
      return payload;
    }
    return payload.pipe(this.counter(reply));
  };

  private holdUntilDone(reply: FastifyReply, release: () => void): void {
    // 'close' follows the response's end and an aborted connection alike; a client gone while it waited frees the slot at once.
    reply.raw.once('close', release);
    if (reply.raw.socket?.destroyed !== false) release();
  }

  private counter(reply: FastifyReply): Transform {
    let seen = 0;
    let holding = false;
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) => {
        seen += chunk.length;
        if (holding || !this.isLarge(seen)) return callback(null, chunk);
        holding = true;
        this.acquire().then(
          (release) => {
            this.holdUntilDone(reply, release);
            callback(null, chunk);
          },
          (error: unknown) => callback(error as Error),
        );
      },
    });
  }
}

/**
 * Posts a body chunk or the end to a JSON thread. A chunk's memory moves to the thread: copied,
 * each large body was held twice over until the main thread's next collection, which on a busy
 * API came after the next bodies arrived.
 */
function post(reply: Reply, message: Uint8Array<ArrayBuffer> | typeof JSON_END): void {
  if (message === JSON_END) reply(message);
  else reply(message, [message.buffer]);
}

function isPiece(message: unknown): message is JsonPiece {
  return typeof message === 'object' && message !== null && typeof (message as { piece?: unknown }).piece === 'string';
}

/** Puts the long strings back, each the concatenation of its pieces (a rope: nothing is copied here). */
function withPieces(parsed: Extract<JsonParsed, { ok: true }>, pieces: readonly string[]): unknown {
  let next = 0;
  for (const { path, pieces: count } of parsed.big ?? []) {
    let text = '';
    for (let i = 0; i < count; i++) text += pieces[next++] ?? '';
    let holder = parsed.value as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) holder = holder[key] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (last !== undefined) holder[last] = text;
  }
  return parsed.value;
}

/**
 * A chunk as it may move to a thread: only a whole buffer can be moved, so a chunk that is a slice
 * of a larger one (or of Node's shared pool) is copied to its own first (a socket's reads usually are not).
 */
function ownBytes(chunk: Buffer): Uint8Array<ArrayBuffer> {
  return chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.length && chunk.buffer instanceof ArrayBuffer ? new Uint8Array(chunk.buffer) : new Uint8Array(chunk);
}

function busy(config: UploadGateConfig): ProblemError {
  return new ProblemError(
    'SERVICE_UNAVAILABLE',
    `${config.uploadLargeConcurrency} uploads over ${config.uploadLargeBodyBytes} bytes are being read here already; retry after the time given.`,
    { headers: { 'retry-after': RETRY_AFTER_SECONDS } },
  );
}

/** Registers `plugins` (the upload routes) behind one gate, with its JSON parser; routes elsewhere are untouched. */
export function gatedUploads(gate: UploadGate, plugins: readonly RoutePlugin[]): RoutePlugin {
  return async (app: App) => {
    app.addHook('preParsing', gate.preParsing);
    app.addHook('onClose', () => gate.close());
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', gate.parseJson);
    for (const plugin of plugins) await app.register(plugin);
  };
}
