import { useState } from 'preact/hooks';
import { asProblem, type Api, type Problem } from '../api/client.js';

/** How long a search or comparison may wait for its targets to be prepared. */
export const WAIT_MS = 20_000;

/** A request of a cursor-paged POST operation: the next page repeats it with `after`. */
interface PagedRequest {
  after?: string;
}

interface PagedResponse {
  readonly next_cursor: string | null;
}

export interface PagedQuery<Req extends PagedRequest, Res extends PagedResponse> {
  /** The request and every page read so far; null before the first answer. */
  readonly result: { readonly request: Req; readonly pages: readonly Res[] } | null;
  readonly problem: Problem | null;
  readonly busy: boolean;
  /** Forgets the pages and asks for the first page of `request`. */
  readonly start: (request: Req) => void;
  /** Asks for the page after the last one read. */
  readonly more: () => void;
  /** Runs another call of the view under the same busy flag and problem box. */
  readonly guard: (work: () => Promise<void>) => Promise<void>;
  /** Forgets the problem shown (the view was left). */
  readonly clearProblem: () => void;
}

/** The state of a cursor-paged POST operation (grep, compare): pages read, its problem, whether a call is out. */
export function usePagedQuery<Req extends PagedRequest, Res extends PagedResponse>(api: Api, path: string): PagedQuery<Req, Res> {
  const [result, setResult] = useState<{ request: Req; pages: readonly Res[] } | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const guard = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      await work();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const read = (request: Req, previous: readonly Res[]): Promise<void> =>
    guard(async () => {
      const page = await api.json<Res>(path, { method: 'POST', body: request });
      setResult({ request, pages: [...previous, page] });
    });

  return {
    result,
    problem,
    busy,
    start: (request) => {
      setResult(null);
      void read(request, []);
    },
    more: () => {
      const cursor = result?.pages.at(-1)?.next_cursor ?? null;
      if (result !== null && cursor !== null) void read({ ...result.request, after: cursor }, result.pages);
    },
    guard,
    clearProblem: () => setProblem(null),
  };
}
