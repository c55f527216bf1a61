/**
 * The console's one way to the API: same origin, bearer token in a header (never in a URL),
 * `no-store`, no cookies. Failures become a `Problem` carrying the problem document's code.
 */

export interface ProblemFields {
  readonly title: string;
  readonly detail: string;
  readonly code: string | null;
  readonly failureCode?: string | null;
  readonly requestId?: string | null;
  readonly status?: number | null;
}

export class Problem extends Error {
  readonly title: string;
  readonly detail: string;
  readonly code: string | null;
  readonly failureCode: string | null;
  readonly requestId: string | null;
  readonly status: number | null;

  constructor(fields: ProblemFields) {
    super(fields.detail);
    this.name = 'Problem';
    this.title = fields.title;
    this.detail = fields.detail;
    this.code = fields.code;
    this.failureCode = fields.failureCode ?? null;
    this.requestId = fields.requestId ?? null;
    this.status = fields.status ?? null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A problem from a non-2xx answer: its problem+json fields when there are any. */
export async function problemFrom(response: Response): Promise<Problem> {
  let doc: unknown = null;
  if (/json/i.test(response.headers.get('content-type') ?? '')) {
    try {
      doc = await response.json();
    } catch {
      doc = null;
    }
  }
  const field = (name: string): string | null => (isRecord(doc) && typeof doc[name] === 'string' ? doc[name] : null);
  return new Problem({
    title: `${field('title') ?? (response.statusText || 'Error')} (${response.status})`,
    detail: field('detail') ?? `The service answered with status ${response.status}.`,
    code: field('code'),
    failureCode: field('failure_code'),
    requestId: response.headers.get('x-request-id'),
    status: response.status,
  });
}

export function asProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof DOMException && error.name === 'AbortError') return new Problem({ title: 'Cancelled', detail: 'The request was cancelled.', code: null });
  return new Problem({ title: 'Network error', detail: `The service could not be reached (${String(error)}).`, code: null });
}

/** Checks a pasted token (a leading "Bearer " is forgiven) and returns it bare. */
export function checkToken(raw: string): string {
  const token = raw.trim().replace(/^bearer\s+/i, '');
  if (token === '') throw new Problem({ title: 'No token', detail: 'Paste a bearer token first.', code: null });
  if (!/^[\x21-\x7e]+$/.test(token)) throw new Problem({ title: 'Invalid token', detail: 'A token is printable ASCII without spaces.', code: null });
  return token;
}

export interface Api {
  /** A request with the bearer token; answers the response when it is 2xx, else throws its Problem. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON in, JSON out. */
  json<T>(path: string, options?: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal }): Promise<T>;
}

export function createApi(token: () => string): Api {
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${checkToken(token())}`);
    const response = await fetch(path, { ...init, headers, cache: 'no-store', credentials: 'omit' });
    if (!response.ok) throw await problemFrom(response);
    return response;
  };
  return {
    fetch: send,
    json: async <T,>(path: string, options: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal } = {}): Promise<T> => {
      const headers: Record<string, string> = { accept: 'application/json' };
      const init: RequestInit = { method: options.method ?? 'GET', headers };
      if (options.signal) init.signal = options.signal;
      if (options.body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(options.body);
      }
      const response = await send(path, init);
      return (await response.json()) as T;
    },
  };
}

/** `GET /v1/read` query: `URLSearchParams` encodes `+` as %2B and `#` as %23, as the contract asks. */
export function readUrl(target: string, path: string, offset = 0): string {
  const query = new URLSearchParams({ target, path });
  if (offset > 0) query.set('offset', String(offset));
  return `/v1/read?${query.toString()}`;
}
