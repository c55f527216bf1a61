import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { asProblem, type Api, type Problem } from '../api/client.js';
import { INTENTS, type Intent, type ListEntry, type ListRequest, type ListResponse } from '../api/types.js';
import { formatBytes, plural } from '../ui/format.js';
import { ProblemBox } from '../ui/problem-box.js';
import { FileView, type FileRef } from './file-view.js';
import { isPackageTarget, targetFromInput } from './target-input.js';

/** How long one list call may wait for preparation before the console asks again. */
const PREPARE_WAIT_MS = 10_000;
const PAGE_SIZE = 100;

interface Level {
  readonly label: string;
  readonly target: string;
  readonly paths: readonly string[] | null;
}

interface Filters {
  readonly languages: readonly string[];
  readonly fileTypes: readonly string[];
  readonly intents: readonly Intent[];
  readonly recursive: boolean;
}

const NO_FILTERS: Filters = { languages: [], fileTypes: [], intents: [], recursive: false };

function words(text: string): string[] {
  return text.split(/[\s,]+/).map((w) => w.trim().toLowerCase()).filter((w) => w !== '');
}

function preparing(page: ListResponse): boolean {
  if (page.inventory_kind === 'site') return page.entries.length === 0 && page.crawl_status === 'running';
  return page.entries.length === 0 && (page.code_index_state === 'pending' || page.code_index_state === 'indexing' || page.indexing_status === 'pending' || page.indexing_status === 'indexing');
}

function requestOf(level: Level, filters: Filters, after: string | null, site: boolean): ListRequest {
  const body: ListRequest = { target: level.target, limit: PAGE_SIZE };
  if (level.paths !== null && level.paths.length > 0) body.paths = [...level.paths];
  if (filters.recursive) body.recursive = true;
  if (!site) {
    if (filters.languages.length > 0) body.languages = [...filters.languages];
    if (filters.fileTypes.length > 0) body.file_types = [...filters.fileTypes];
    if (filters.intents.length > 0) body.intents = [...filters.intents];
  }
  if (after !== null) body.after = after;
  return body;
}

function lastSegment(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || path;
}

/** Browse a package, repository or site: directories by their browse actions, files by their read actions. */
export interface ExplorerViewProps {
  readonly api: Api;
  /** A file to open (from a search match); cleared with `onOpened`. */
  readonly open: FileRef | null;
  readonly onOpened: () => void;
  /** A target to browse (from a package page or an inventory component); cleared with `onBrowsed`. */
  readonly browse?: string | null;
  readonly onBrowsed?: () => void;
  /** Show a package target's package page. */
  readonly onPackage?: (target: string) => void;
  /** Whether the view is shown: its notices are cleared when it is left. */
  readonly active?: boolean;
}

export function ExplorerView({ api, open, onOpened, browse: browseTarget = null, onBrowsed, onPackage, active = true }: ExplorerViewProps): JSX.Element {
  const [targetText, setTargetText] = useState('');
  const [levels, setLevels] = useState<readonly Level[]>([]);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [languagesText, setLanguagesText] = useState('');
  const [typesText, setTypesText] = useState('');
  const [intents, setIntents] = useState<readonly Intent[]>([]);
  const [recursive, setRecursive] = useState(false);
  /** Cursors of the pages before the current one (page one's is null). */
  const [cursors, setCursors] = useState<readonly (string | null)[]>([null]);
  const [page, setPage] = useState<ListResponse | null>(null);
  const [waiting, setWaiting] = useState<ListResponse | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [file, setFile] = useState<FileRef | null>(null);
  const request = useRef<AbortController | null>(null);

  const level = levels.at(-1) ?? null;
  const after = cursors.at(-1) ?? null;

  useEffect(() => {
    if (open === null) return;
    setFile(open);
    setTargetText(open.target);
    setLevels([{ label: open.target, target: open.target, paths: null }]);
    setCursors([null]);
    onOpened();
  }, [open, onOpened]);

  useEffect(() => {
    if (browseTarget === null) return;
    setFile(null);
    setTargetText(browseTarget);
    setLevels([{ label: browseTarget, target: browseTarget, paths: null }]);
    setCursors([null]);
    onBrowsed?.();
  }, [browseTarget, onBrowsed]);

  useEffect(() => {
    if (!active) setProblem(null);
  }, [active]);

  useEffect(() => {
    request.current?.abort();
    if (level === null) return;
    const controller = new AbortController();
    request.current = controller;
    const site = level.target.startsWith('site:');
    setBusy(true);
    setProblem(null);
    const run = async (): Promise<void> => {
      let wait = 0;
      for (;;) {
        const body = requestOf(level, filters, after, site);
        if (wait > 0) body.wait_timeout_ms = wait;
        const response = await api.json<ListResponse>('/v1/list', { method: 'POST', body, signal: controller.signal });
        if (controller.signal.aborted) return;
        if (!preparing(response)) {
          setWaiting(null);
          setPage(response);
          return;
        }
        setWaiting(response);
        setPage(null);
        wait = PREPARE_WAIT_MS;
      }
    };
    run()
      .catch((error: unknown) => {
        if (!controller.signal.aborted) {
          setProblem(asProblem(error));
          setWaiting(null);
        }
      })
      .finally(() => {
        if (!controller.signal.aborted) setBusy(false);
      });
    return () => controller.abort();
  }, [api, level, filters, after]);

  const browse = (event: Event): void => {
    event.preventDefault();
    const target = targetFromInput(targetText);
    setTargetText(target);
    if (target === '') {
      setProblem(asProblem(new Error('Enter a target such as npm:react@18.3.1')));
      return;
    }
    setFile(null);
    setFilters({ languages: words(languagesText), fileTypes: words(typesText), intents, recursive });
    setLevels([{ label: target, target, paths: null }]);
    setCursors([null]);
  };

  const enter = (entry: ListEntry): void => {
    if (entry.browse !== null) {
      setLevels([...levels, { label: lastSegment(entry.path), target: entry.browse.target, paths: entry.browse.paths }]);
      setCursors([null]);
    } else if (entry.read !== null) {
      setFile({ target: entry.read.target, path: entry.read.path ?? entry.path });
    }
  };

  const site = level?.target.startsWith('site:') ?? targetText.trim().startsWith('site:');
  return (
    <section aria-labelledby="explorer-heading">
      <h2 id="explorer-heading">Explorer</h2>
      <form class="explorer-form" onSubmit={browse} data-testid="explorer-form">
        <label for="explore-target">Target to browse</label>
        <input id="explore-target" data-testid="explore-target" value={targetText} onInput={(e) => setTargetText(e.currentTarget.value)} placeholder="npm:react@18.3.1, https://github.com/owner/repo, site:docs.example.com" spellcheck={false} autocomplete="off" aria-describedby="explore-hint" />
        <p id="explore-hint" class="hint">
          A package (<code>npm:react@18.3.1</code>, <code>pypi:requests</code>, <code>crates:serde</code>…), a repository (<code>github:owner/repo@ref</code> or its web address) or a documentation site (<code>site:docs.example.com/guide</code> or its address).
        </p>
        <details>
          <summary>Filters</summary>
          <div class="filters">
            <label for="explore-languages">Languages</label>
            <input id="explore-languages" value={languagesText} onInput={(e) => setLanguagesText(e.currentTarget.value)} placeholder="typescript, javascript" disabled={site} />
            <label for="explore-types">File types</label>
            <input id="explore-types" value={typesText} onInput={(e) => setTypesText(e.currentTarget.value)} placeholder="ts, md" disabled={site} />
            <fieldset disabled={site}>
              <legend>Intents</legend>
              {INTENTS.map((intent) => (
                <label key={intent} class="inline">
                  <input type="checkbox" checked={intents.includes(intent)} onChange={(e) => setIntents(e.currentTarget.checked ? [...intents, intent] : intents.filter((i) => i !== intent))} /> {intent}
                </label>
              ))}
            </fieldset>
            <label class="inline">
              <input type="checkbox" checked={recursive} onChange={(e) => setRecursive(e.currentTarget.checked)} /> List every file below (recursive)
            </label>
            {site ? <p class="hint">Language, file-type and intent filters apply to packages and repositories, not sites.</p> : null}
          </div>
        </details>
        <p>
          <button type="submit" data-testid="explore-submit" disabled={busy && waiting === null}>
            Browse
          </button>
        </p>
      </form>
      <ProblemBox problem={problem} idPrefix="explorer-error" />
      {levels.length > 0 ? (
        <nav aria-label="Breadcrumbs" class="breadcrumbs" data-testid="breadcrumbs">
          <ol>
            {levels.map((l, i) => (
              <li key={i}>
                {i === levels.length - 1 ? (
                  <span aria-current="location">{i === 0 ? (page?.canonical_target ?? l.label) : l.label}</span>
                ) : (
                  <button type="button" class="link" onClick={() => { setLevels(levels.slice(0, i + 1)); setCursors([null]); }}>
                    {i === 0 ? (page?.canonical_target ?? l.label) : l.label}
                  </button>
                )}
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      {onPackage !== undefined && level !== null && isPackageTarget(levels[0]?.target ?? '') ? (
        <p>
          <button type="button" class="link" data-testid="explorer-package-page" onClick={() => onPackage(page?.canonical_target ?? levels[0]?.target ?? '')}>
            Package page of {page?.canonical_target ?? levels[0]?.target}
          </button>
        </p>
      ) : null}
      {waiting !== null ? (
        <p role="status" data-testid="preparing" data-state={waiting.code_index_state ?? waiting.crawl_status ?? 'pending'}>
          Preparing <code>{waiting.canonical_target ?? waiting.requested_target}</code> ({waiting.code_index_state ?? waiting.crawl_status ?? 'pending'})
          {typeof waiting.indexing_estimate?.upper_seconds === 'number' ? `, usually done within ${waiting.indexing_estimate.upper_seconds} s` : ''}. The list appears when it is ready.
        </p>
      ) : null}
      {page !== null ? (
        <div class="listing">
          <p class="hint" role="status" data-testid="list-status">
            {page.entries.length === 0 ? 'Nothing here' : plural(page.entries.length, 'entry', 'entries')}
            {cursors.length > 1 ? ` (page ${cursors.length})` : ''}
            {page.code_index_state !== null ? ` · ${page.code_index_state}` : ''}
            {page.coverage_state !== null ? ` · coverage ${page.coverage_state}` : ''}
            {page.inventory_state === 'empty' ? ' · no pages stored yet' : ''}
          </p>
          <div class="table-wrap">
            <table class="entries stack" data-testid="entries">
              <caption class="visually-hidden">Entries of {level?.label ?? ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Language</th>
                  <th scope="col">Intent</th>
                  <th scope="col" class="num">Size</th>
                  <th scope="col" class="num">Lines</th>
                </tr>
              </thead>
              <tbody>
                {page.entries.map((e) => (
                  <tr key={`${e.kind}:${e.path}`} data-kind={e.kind} data-path={e.path}>
                    <td data-label="Name">
                      <button type="button" class="link entry" onClick={() => enter(e)} disabled={e.read === null && e.browse === null} aria-label={`${e.kind === 'directory' ? 'Open folder' : 'Read'} ${e.path}`}>
                        <span aria-hidden="true" class="kind">{e.kind === 'directory' ? '▸' : e.kind === 'page' ? '¶' : '·'}</span><span class="name">{e.title ?? e.path}</span>
                      </button>
                    </td>
                    <td data-label="Language">{e.language ?? ''}</td>
                    <td data-label="Intent">{e.intent ?? ''}</td>
                    <td data-label="Size" class="num">{e.kind === 'directory' ? '' : formatBytes(e.byte_size)}</td>
                    <td data-label="Lines" class="num">{e.line_count?.toLocaleString('en') ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="pager">
            <button type="button" class="secondary" disabled={cursors.length <= 1 || busy} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous page
            </button>
            <button type="button" class="secondary" disabled={!page.has_more || page.next_cursor === null || busy} onClick={() => page.next_cursor !== null && setCursors([...cursors, page.next_cursor])}>
              Next page
            </button>
          </p>
        </div>
      ) : null}
      {file !== null ? <FileView api={api} file={file} onClose={() => setFile(null)} /> : null}
    </section>
  );
}
