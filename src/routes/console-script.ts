import { JOBS_PATH, type JobPhase } from '../jobs/snapshot.js';
import type { CountName, FailureCode, OutputFormat } from '../sbom/types.js';

/**
 * The job console's browser script and the labels it shows. Labels are keyed by the domain's own
 * unions, so a new phase, count, failure code or format does not compile until it has one.
 */

const PHASE_LABELS: Readonly<Record<JobPhase, string>> = {
  queued: 'Queued',
  resolving: 'Resolving dependencies',
  enriching: 'Enriching with registry metadata',
  rendering: 'Rendering the document',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

export const COUNT_LABELS: Readonly<Record<CountName, string>> = {
  manifests_total: 'Manifests',
  manifests_done: 'Manifests resolved',
  resolved: 'Packages found',
  coordinates_total: 'Registry lookups',
  coordinates_done: 'Registry lookups done',
  fetched: 'Fetched from the registry',
  cached: 'From the metadata cache',
  fetch_failed: 'Lookups failed',
  queued_packages: 'Packages waiting',
};

const FAILURE_LABELS: Readonly<Record<FailureCode, string>> = {
  resolution_timeout: 'Resolving the dependencies took too long.',
  resolution_failed: 'The dependencies could not be resolved.',
  output_too_large: 'The document would be larger than the service allows.',
  unrepresentable_spdx: 'The inventory cannot be expressed as SPDX 2.3; try CycloneDX.',
  parser_contract_changed: 'The service was upgraded while the job waited; submit it again.',
  execution_failed: 'The analysis failed repeatedly; try again later.',
  execution_record_unavailable: 'The uploaded files are no longer available; submit them again.',
  invalid_response: 'The registry answered with something that could not be used.',
  no_manifest_evidence: 'None of the uploaded files is a recognised manifest or lockfile.',
};

/** Labels and file-name endings of the formats (CycloneDX and SPDX name their JSON files so). */
export const FORMATS: Readonly<Record<OutputFormat, { readonly label: string; readonly extension: string }>> = {
  cyclonedx: { label: 'CycloneDX 1.7 (JSON)', extension: '.cdx.json' },
  spdx: { label: 'SPDX 2.3 (JSON)', extension: '.spdx.json' },
  text: { label: 'Plain text', extension: '.txt' },
};

/** `<` escaped so the JSON can never close the script element it sits in. */
const SETTINGS = JSON.stringify({
  jobsPath: JOBS_PATH,
  phases: PHASE_LABELS,
  counts: COUNT_LABELS,
  failures: FAILURE_LABELS,
  formats: FORMATS,
}).replace(/</g, '\\u003c');

/* The browser script: plain JavaScript, written without template literals so no `${` reaches it. */
export const CONSOLE_SCRIPT = String.raw`
const SETTINGS = ${SETTINGS};
const STALL_MS = 45000;
const MAX_FAILURES = 6;
const byId = (id) => document.getElementById(id);
const form = byId('job-form');
const tokenInput = byId('token');
const lockfileInput = byId('lockfile');
const manifestInput = byId('manifest');
const formatSelect = byId('format');
const submitButton = byId('submit');
const downloadButton = byId('download');
const saveLink = byId('save-link');
const reconnectButton = byId('reconnect');
let current = null;

class Problem extends Error {
  constructor(fields) { super(fields.detail); Object.assign(this, fields); }
}

function text(id, value) { byId(id).textContent = value; }

function own(map, key) { return Object.hasOwn(map, key) ? map[key] : null; }

function readToken() {
  const token = tokenInput.value.trim().replace(/^bearer\s+/i, '');
  if (token === '') throw new Problem({ title: 'No token', detail: 'Paste a bearer token first.', code: null });
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new Problem({ title: 'Invalid token', detail: 'A token is printable ASCII without spaces.', code: null });
  }
  return token;
}

async function problemFrom(response) {
  let doc = null;
  if (/json/i.test(response.headers.get('content-type') || '')) {
    try { doc = await response.json(); } catch { doc = null; }
  }
  const field = (name) => (doc !== null && typeof doc[name] === 'string' ? doc[name] : null);
  return new Problem({
    title: (field('title') || response.statusText || 'Error') + ' (' + response.status + ')',
    detail: field('detail') || 'The service answered with status ' + response.status + '.',
    code: field('code'),
    failureCode: field('failure_code'),
    requestId: response.headers.get('x-request-id'),
  });
}

function asProblem(error) {
  if (error instanceof Problem) return error;
  return new Problem({ title: 'Network error', detail: 'The service could not be reached (' + error + ').', code: null });
}

function showProblem(problem) {
  text('error-title', problem.title);
  text('error-detail', problem.detail);
  const code = problem.failureCode ? problem.code + ' / ' + problem.failureCode : problem.code;
  text('error-code', code || '');
  byId('error-code-row').hidden = !code;
  text('error-request', problem.requestId || '');
  byId('error-request-row').hidden = !problem.requestId;
  byId('error').hidden = false;
}

function clearProblem() { byId('error').hidden = true; }

function announce(message) { text('progress-status', message); }

function setConnection(job, state, detail) {
  if (job !== current) return;
  const el = byId('connection');
  el.dataset.state = state;
  el.textContent = detail ? state + ' (' + detail + ')' : state;
}

/** The text/event-stream format (WHATWG HTML, server-sent events), fed decoded text chunks. */
function eventStreamParser(lastEventId, handlers) {
  let buffer = '';
  let skipLF = false;
  let data = '';
  let type = '';
  let idBuffer = lastEventId;
  const line = (value) => {
    if (value === '') {
      handlers.id(idBuffer);
      if (data !== '') handlers.event({ type: type || 'message', data: data.slice(0, -1), id: idBuffer });
      data = '';
      type = '';
      return;
    }
    if (value[0] === ':') { handlers.comment(value.slice(1)); return; }
    const colon = value.indexOf(':');
    const name = colon === -1 ? value : value.slice(0, colon);
    let field = colon === -1 ? '' : value.slice(colon + 1);
    if (field[0] === ' ') field = field.slice(1);
    if (name === 'event') type = field;
    else if (name === 'data') data += field + '\n';
    else if (name === 'id' && !field.includes('\u0000')) idBuffer = field;
    else if (name === 'retry' && /^[0-9]+$/.test(field)) handlers.retry(Number(field));
  };
  return (chunk) => {
    if (chunk === '') return;
    if (skipLF && chunk[0] === '\n') chunk = chunk.slice(1);
    skipLF = false;
    buffer += chunk;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      line(buffer.slice(start, i));
      if (c === '\r') {
        if (i + 1 === buffer.length) skipLF = true;
        else if (buffer[i + 1] === '\n') i += 1;
      }
      start = i + 1;
    }
    // What follows the last line end is an unfinished line; at the end of the stream it is dropped.
    buffer = buffer.slice(start);
  };
}

function jobUrl(job, suffix) { return SETTINGS.jobsPath + '/' + encodeURIComponent(job.id) + suffix; }

function resetJobView(job) {
  byId('job').hidden = false;
  text('job-id', job.id);
  const format = own(SETTINGS.formats, job.format);
  text('job-format', format ? format.label : job.format);
  byId('phase-log').replaceChildren();
  for (const dd of document.querySelectorAll('#counts dd')) dd.textContent = '\u2014';
  byId('coordinates-progress').hidden = true;
  byId('result').hidden = true;
  saveLink.hidden = true;
  reconnectButton.hidden = true;
}

function applySnapshot(job, snapshot) {
  if (job !== current || snapshot === null || typeof snapshot !== 'object') return;
  if (snapshot.id !== job.id || typeof snapshot.revision !== 'number' || snapshot.revision < job.revision) return;
  job.revision = snapshot.revision;
  job.state = snapshot.state;
  const phaseLabel = own(SETTINGS.phases, snapshot.phase) || snapshot.phase;
  text('job-state', snapshot.state);
  text('job-phase', phaseLabel);
  byId('job-phase').dataset.phase = snapshot.phase;
  text('job-revision', String(snapshot.revision));
  text('job-attempt', String(snapshot.attempt));
  text('job-expires', new Date(snapshot.expires_at).toLocaleString());
  const counts = snapshot.counts || {};
  for (const dd of document.querySelectorAll('#counts dd')) {
    const value = own(counts, dd.dataset.count);
    dd.textContent = typeof value === 'number' ? value.toLocaleString() : '\u2014';
  }
  const bar = byId('coordinates-progress');
  if (typeof counts.coordinates_total === 'number' && counts.coordinates_total > 0) {
    bar.max = counts.coordinates_total;
    bar.value = counts.coordinates_done || 0;
    bar.hidden = false;
  }
  if (snapshot.phase !== job.phase || snapshot.attempt !== job.attempt) {
    job.phase = snapshot.phase;
    job.attempt = snapshot.attempt;
    const item = document.createElement('li');
    item.dataset.phase = snapshot.phase;
    item.append(phaseLabel + (snapshot.attempt > 1 ? ' (attempt ' + snapshot.attempt + ')' : ''));
    const time = document.createElement('time');
    time.dateTime = new Date().toISOString();
    time.textContent = new Date().toLocaleTimeString();
    item.append(time);
    byId('phase-log').append(item);
    announce('Job ' + job.id + ': ' + phaseLabel + '.');
  }
  if (snapshot.state === 'succeeded') {
    job.terminal = true;
    byId('result').hidden = false;
    downloadButton.disabled = false;
    announce('Job ' + job.id + ' succeeded. The result is ready to download.');
  } else if (snapshot.state === 'failed') {
    job.terminal = true;
    const why = own(SETTINGS.failures, snapshot.error) || 'The analysis failed.';
    showProblem({ title: 'The job failed', detail: why, code: snapshot.error, requestId: null });
    announce('Job ' + job.id + ' failed: ' + (snapshot.error || 'unknown error') + '.');
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** One connection to the events stream; resolves when it ends, rejects on network errors. */
async function streamOnce(job) {
  const attempt = new AbortController();
  const stop = () => attempt.abort();
  job.controller.signal.addEventListener('abort', stop, { once: true });
  let watchdog = 0;
  // Heartbeats come every 15 s; a silent connection is dead even if no error says so.
  const arm = () => { clearTimeout(watchdog); watchdog = setTimeout(stop, STALL_MS); };
  const headers = { authorization: 'Bearer ' + job.token, accept: 'text/event-stream' };
  if (job.lastEventId !== '') headers['last-event-id'] = job.lastEventId;
  try {
    arm();
    setConnection(job, 'connecting');
    const response = await fetch(jobUrl(job, '/events'), { headers, signal: attempt.signal, cache: 'no-store', credentials: 'omit' });
    if (!response.ok) {
      const problem = await problemFrom(response);
      const retry = response.status >= 500 || response.status === 429;
      return { fatal: !retry, problem };
    }
    setConnection(job, 'live');
    const feed = eventStreamParser(job.lastEventId, {
      event: (event) => {
        if (event.type !== 'snapshot') return;
        let snapshot = null;
        try { snapshot = JSON.parse(event.data); } catch { return; }
        job.delivered = true;
        applySnapshot(job, snapshot);
      },
      id: (id) => { job.lastEventId = id; },
      retry: (ms) => { job.retryMs = ms; },
      comment: () => setConnection(job, 'live', 'heartbeat ' + new Date().toLocaleTimeString()),
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      arm();
      feed(value);
    }
    return { fatal: false, problem: null };
  } finally {
    clearTimeout(watchdog);
    job.controller.signal.removeEventListener('abort', stop);
  }
}

/** Follows the job until a terminal snapshot, reconnecting with Last-Event-ID when a stream ends early. */
async function follow(job) {
  reconnectButton.hidden = true;
  let failures = 0;
  while (!job.terminal && !job.controller.signal.aborted) {
    job.delivered = false;
    let outcome;
    try {
      outcome = await streamOnce(job);
    } catch (error) {
      outcome = { fatal: false, problem: asProblem(error) };
    }
    if (job.terminal || job.controller.signal.aborted || job !== current) break;
    if (outcome.fatal) {
      showProblem(outcome.problem);
      setConnection(job, 'stopped');
      return;
    }
    failures = job.delivered ? 0 : failures + 1;
    if (failures >= MAX_FAILURES) {
      showProblem(outcome.problem || new Problem({ title: 'Event stream lost', detail: 'The stream kept ending without news.', code: null }));
      setConnection(job, 'stopped');
      reconnectButton.hidden = false;
      return;
    }
    const delay = Math.min(job.retryMs * 2 ** failures, 30000);
    setConnection(job, 'reconnecting', 'in ' + (delay / 1000).toFixed(1) + ' s');
    await sleep(delay, job.controller.signal);
  }
  setConnection(job, job.terminal ? 'closed' : 'stopped');
}

async function submitJob() {
  clearProblem();
  const lockfile = lockfileInput.files[0];
  const manifest = manifestInput.files[0];
  let token;
  try {
    token = readToken();
    if (!lockfile) throw new Problem({ title: 'No lockfile', detail: 'Choose a lockfile to analyse.', code: null });
    if (manifest && manifest.name === lockfile.name) {
      throw new Problem({ title: 'Same file name twice', detail: 'The lockfile and package.json need different names.', code: null });
    }
  } catch (problem) {
    showProblem(problem);
    return;
  }
  if (current) current.controller.abort();
  current = null;
  const body = new FormData();
  body.append('format', formatSelect.value);
  body.append('file', lockfile, lockfile.name);
  if (manifest) body.append('file', manifest, manifest.name);
  submitButton.disabled = true;
  announce('Submitting the job\u2026');
  try {
    const response = await fetch(SETTINGS.jobsPath, {
      method: 'POST', body, cache: 'no-store', credentials: 'omit',
      headers: { authorization: 'Bearer ' + token, accept: 'application/json' },
    });
    if (!response.ok) throw await problemFrom(response);
    const snapshot = await response.json();
    const job = {
      id: snapshot.id, format: snapshot.format, token, controller: new AbortController(), revision: -1,
      state: null, phase: null, attempt: 0, lastEventId: '', retryMs: 1000, delivered: false, terminal: false, objectUrl: null,
    };
    current = job;
    resetJobView(job);
    applySnapshot(job, snapshot);
    void follow(job);
  } catch (error) {
    showProblem(asProblem(error));
    announce('The job was not submitted.');
  } finally {
    submitButton.disabled = false;
  }
}

async function downloadResult() {
  const job = current;
  if (!job || job.state !== 'succeeded') return;
  clearProblem();
  downloadButton.disabled = true;
  try {
    const response = await fetch(jobUrl(job, '/result'), {
      headers: { authorization: 'Bearer ' + job.token }, cache: 'no-store', credentials: 'omit',
    });
    if (!response.ok) throw await problemFrom(response);
    const blob = await response.blob();
    if (job.objectUrl) URL.revokeObjectURL(job.objectUrl);
    job.objectUrl = URL.createObjectURL(blob);
    const format = own(SETTINGS.formats, job.format);
    const name = 'pkgscope-' + job.id + (format ? format.extension : '');
    saveLink.href = job.objectUrl;
    saveLink.download = name;
    saveLink.textContent = 'Save ' + name + ' again (' + blob.size.toLocaleString() + ' bytes)';
    saveLink.hidden = false;
    saveLink.click();
    announce('Downloaded ' + name + '.');
  } catch (error) {
    showProblem(asProblem(error));
  } finally {
    downloadButton.disabled = false;
  }
}

form.addEventListener('submit', (event) => { event.preventDefault(); void submitJob(); });
downloadButton.addEventListener('click', () => void downloadResult());
reconnectButton.addEventListener('click', () => { if (current) { clearProblem(); void follow(current); } });
window.addEventListener('pagehide', () => { if (current) current.controller.abort(); });
`;
