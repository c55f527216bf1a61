import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { JOBS_PATH, type JobPhase, type JobSnapshot } from '../../../src/jobs/snapshot.js';
import { COUNT_NAMES, OUTPUT_FORMATS, type OutputFormat } from '../../../src/model/types.js';
import { asProblem, checkToken, Problem, problemFrom } from '../api/client.js';
import { ProblemBox } from '../ui/problem-box.js';
import { type ConnectionState, JobFollower, jobUrl } from './follower.js';
import { COUNT_LABELS, failureNotice, FORMATS, PHASE_LABELS } from './labels.js';

interface PhaseSeen {
  readonly phase: JobPhase;
  readonly attempt: number;
  readonly at: Date;
}

interface JobView {
  readonly id: string;
  readonly format: OutputFormat;
  readonly snapshot: JobSnapshot;
  readonly phases: readonly PhaseSeen[];
  readonly connection: ConnectionState;
  readonly connectionDetail: string | null;
  readonly retryable: boolean;
}

export interface JobsViewProps {
  readonly token: () => string;
  /** Opens a CycloneDX document in the inventory view. */
  readonly onInventory: (document: unknown, source: string) => void;
  readonly announce: (message: string) => void;
}

function fileOf(input: HTMLInputElement | null): File | null {
  return input?.files?.[0] ?? null;
}

/** Submit lockfiles as a job, follow it live over its events stream, download or view the result. */
export function JobsView({ token, onInventory, announce }: JobsViewProps): JSX.Element {
  const [job, setJob] = useState<JobView | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<{ url: string; name: string; size: number } | null>(null);
  const follower = useRef<JobFollower | null>(null);
  const announced = useRef('');
  const lockfile = useRef<HTMLInputElement>(null);
  const manifest = useRef<HTMLInputElement>(null);
  const more = useRef<HTMLInputElement>(null);
  const format = useRef<HTMLSelectElement>(null);
  const saveLink = useRef<HTMLAnchorElement>(null);

  useEffect(() => {
    const stop = (): void => follower.current?.stop();
    window.addEventListener('pagehide', stop);
    return () => {
      window.removeEventListener('pagehide', stop);
      stop();
    };
  }, []);

  useEffect(() => {
    if (saved !== null) saveLink.current?.click();
    return () => {
      if (saved !== null) URL.revokeObjectURL(saved.url);
    };
  }, [saved]);

  const start = (snapshot: JobSnapshot, bearer: string): void => {
    follower.current?.stop();
    const id = snapshot.id;
    const f = new JobFollower(id, bearer, {
      snapshot: (next) => {
        setJob((view) => {
          if (view?.id !== id) return view;
          const last = view.phases.at(-1);
          const phases = last?.phase === next.phase && last.attempt === next.attempt ? view.phases : [...view.phases, { phase: next.phase, attempt: next.attempt, at: new Date() }];
          return { ...view, snapshot: next, phases };
        });
        // The live region speaks of phases and outcomes, not of every count that moved.
        const said = `${next.phase}/${next.attempt}`;
        if (announced.current === said) return;
        announced.current = said;
        const label = PHASE_LABELS[next.phase];
        if (next.state === 'succeeded') announce(`Job ${id} succeeded. The result is ready.`);
        else if (next.state === 'failed') {
          setProblem(new Problem({ ...failureNotice(next.error, { kind: 'job', id }), code: next.error }));
          announce(`Job ${id} failed: ${next.error ?? 'unknown error'}.`);
        } else announce(`Job ${id}: ${label}.`);
      },
      connection: (state, detail) => setJob((view) => (view?.id === id ? { ...view, connection: state, connectionDetail: detail } : view)),
      problem: (p, retryable) => {
        setProblem(p);
        setJob((view) => (view?.id === id ? { ...view, retryable } : view));
      },
    });
    follower.current = f;
    setJob({ id, format: snapshot.format, snapshot, phases: [], connection: 'connecting', connectionDetail: null, retryable: false });
    f.apply(snapshot);
    void f.follow();
  };

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setProblem(null);
    const lock = fileOf(lockfile.current);
    const pkg = fileOf(manifest.current);
    const extra = [...(more.current?.files ?? [])];
    let bearer: string;
    try {
      bearer = checkToken(token());
      if (lock === null) throw new Problem({ title: 'No lockfile', detail: 'Choose a lockfile to analyse.', code: null });
      const names = [lock, ...(pkg ? [pkg] : []), ...extra].map((f) => f.name);
      if (new Set(names).size !== names.length) throw new Problem({ title: 'Same file name twice', detail: 'Every uploaded file needs a different name.', code: null });
    } catch (error) {
      setProblem(asProblem(error));
      return;
    }
    follower.current?.stop();
    follower.current = null;
    setJob(null);
    setSaved(null);
    const body = new FormData();
    body.append('format', format.current?.value ?? 'cyclonedx');
    for (const file of [lock, ...(pkg ? [pkg] : []), ...extra]) body.append('file', file, file.name);
    setBusy(true);
    announce('Submitting the job…');
    try {
      const response = await fetch(JOBS_PATH, { method: 'POST', body, cache: 'no-store', credentials: 'omit', headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' } });
      if (!response.ok) throw await problemFrom(response);
      start((await response.json()) as JobSnapshot, bearer);
    } catch (error) {
      setProblem(asProblem(error));
      announce('The job was not submitted.');
    } finally {
      setBusy(false);
    }
  };

  const fetchResult = async (): Promise<Response | null> => {
    if (job === null) return null;
    setProblem(null);
    try {
      const response = await fetch(jobUrl(job.id, '/result'), { headers: { authorization: `Bearer ${checkToken(token())}` }, cache: 'no-store', credentials: 'omit' });
      if (!response.ok) throw await problemFrom(response);
      return response;
    } catch (error) {
      setProblem(asProblem(error));
      return null;
    }
  };

  const download = async (): Promise<void> => {
    if (job === null) return;
    setBusy(true);
    const response = await fetchResult();
    if (response !== null) {
      const blob = await response.blob();
      const name = `pkgscope-${job.id}${FORMATS[job.format].extension}`;
      setSaved({ url: URL.createObjectURL(blob), name, size: blob.size });
      announce(`Downloaded ${name}.`);
    }
    setBusy(false);
  };

  const view = async (): Promise<void> => {
    if (job === null) return;
    setBusy(true);
    const response = await fetchResult();
    if (response !== null) {
      try {
        onInventory(await response.json(), `job ${job.id}`);
      } catch (error) {
        setProblem(asProblem(error));
      }
    }
    setBusy(false);
  };

  const snapshot = job?.snapshot ?? null;
  const counts = snapshot?.counts ?? {};
  const total = counts.coordinates_total ?? 0;
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Analysis jobs</h2>
      <p class="hint">Submit lockfiles and manifests for analysis, follow the job live, then view the inventory or download it.</p>
      <form id="job-form" data-testid="job-form" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset>
          <legend>Files</legend>
          <label for="lockfile">Lockfile</label>
          <input id="lockfile" ref={lockfile} data-testid="lockfile" type="file" aria-describedby="lockfile-hint" required />
          <p id="lockfile-hint" class="hint">
            package-lock.json, yarn.lock, pnpm-lock.yaml, Cargo.lock, poetry.lock, go.sum, Gemfile.lock, composer.lock…
          </p>
          <label for="manifest">package.json (optional)</label>
          <input id="manifest" ref={manifest} data-testid="manifest" type="file" />
          <label for="more-files">More files (optional)</label>
          <input id="more-files" ref={more} data-testid="more-files" type="file" multiple aria-describedby="more-hint" />
          <p id="more-hint" class="hint">Other manifests and lockfiles of the same project; each needs a different name.</p>
        </fieldset>
        <label for="format">Output format</label>
        <select id="format" ref={format} data-testid="format">
          {OUTPUT_FORMATS.map((value) => (
            <option key={value} value={value}>
              {FORMATS[value].label}
            </option>
          ))}
        </select>
        <p>
          <button id="submit" data-testid="submit" type="submit" disabled={busy}>
            Submit job
          </button>
        </p>
      </form>
      <ProblemBox problem={problem} idPrefix="error" />
      {job !== null && snapshot !== null ? (
        <section id="job" data-testid="job" aria-labelledby="job-heading">
          <h3 id="job-heading">Job</h3>
          <dl class="facts">
            <dt>Id</dt>
            <dd>
              <code id="job-id" data-testid="job-id">{job.id}</code>
            </dd>
            <dt>Format</dt>
            <dd id="job-format">{FORMATS[job.format].label}</dd>
            <dt>State</dt>
            <dd id="job-state" data-testid="job-state">{snapshot.state}</dd>
            <dt>Phase</dt>
            <dd id="job-phase" data-testid="job-phase" data-phase={snapshot.phase}>{PHASE_LABELS[snapshot.phase]}</dd>
            <dt>Revision</dt>
            <dd id="job-revision">{String(snapshot.revision)}</dd>
            <dt>Attempt</dt>
            <dd id="job-attempt">{String(snapshot.attempt)}</dd>
            <dt>Expires</dt>
            <dd id="job-expires">{new Date(snapshot.expires_at).toLocaleString()}</dd>
            <dt>Events</dt>
            <dd id="connection" data-testid="connection" data-state={job.connection}>
              {job.connectionDetail ? `${job.connection} (${job.connectionDetail})` : job.connection}
            </dd>
          </dl>
          {job.retryable && job.connection === 'stopped' ? (
            <p>
              <button
                id="reconnect"
                data-testid="reconnect"
                class="secondary"
                type="button"
                onClick={() => {
                  setProblem(null);
                  start(snapshot, checkToken(token()));
                }}
              >
                Reconnect to the events
              </button>
            </p>
          ) : null}
          <h4>Phases seen</h4>
          <ol id="phase-log" data-testid="phase-log">
            {job.phases.map((p) => (
              <li key={`${p.phase}-${p.attempt}`} data-phase={p.phase}>
                {PHASE_LABELS[p.phase]}
                {p.attempt > 1 ? ` (attempt ${p.attempt})` : ''}
                <time dateTime={p.at.toISOString()}>{p.at.toLocaleTimeString()}</time>
              </li>
            ))}
          </ol>
          <h4>Counts</h4>
          {total > 0 ? <progress id="coordinates-progress" data-testid="coordinates-progress" aria-label="Registry lookups done" max={total} value={counts.coordinates_done ?? 0} /> : null}
          <dl id="counts" data-testid="counts" class="facts">
            {COUNT_NAMES.map((name) => [
              <dt key={`${name}-t`}>{COUNT_LABELS[name]}</dt>,
              <dd key={`${name}-d`} data-count={name}>
                {typeof counts[name] === 'number' ? counts[name].toLocaleString() : '\u2014'}
              </dd>,
            ])}
          </dl>
          {snapshot.state === 'succeeded' ? (
            <div id="result" data-testid="result">
              <h4>Result</h4>
              <p class="actions">
                {job.format === 'cyclonedx' ? (
                  <button id="view-inventory" data-testid="view-inventory" type="button" disabled={busy} onClick={() => void view()}>
                    View the inventory
                  </button>
                ) : null}
                <button id="download" data-testid="download" type="button" class={job.format === 'cyclonedx' ? 'secondary' : ''} disabled={busy} onClick={() => void download()}>
                  Download the result
                </button>
                {saved !== null ? (
                  <a id="save-link" data-testid="save-link" ref={saveLink} href={saved.url} download={saved.name}>
                    Save {saved.name} again ({saved.size.toLocaleString()} bytes)
                  </a>
                ) : null}
              </p>
            </div>
          ) : null}
        </section>
      ) : null}
    </section>
  );
}
