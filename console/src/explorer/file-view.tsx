import type { JSX } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { asProblem, readUrl, type Api, type Problem } from '../api/client.js';
import type { ReadResponse } from '../api/types.js';
import { formatBytes } from '../ui/format.js';
import { ProblemBox } from '../ui/problem-box.js';
import { highlighted, highlightLanguage } from './highlight.js';
import { Markdown } from './markdown.js';

export interface FileRef {
  readonly target: string;
  readonly path: string;
  /** A line to bring into view (from a grep match). */
  readonly line?: number;
}

interface Loaded {
  readonly first: ReadResponse;
  /** The text (or base64) read so far: slices appended as the user asks for more. */
  readonly content: string;
  readonly nextOffset: number | null;
}

function hexPreview(base64: string, bytes = 256): string {
  const raw = atob(base64.slice(0, Math.ceil(bytes / 3) * 4));
  const lines: string[] = [];
  for (let i = 0; i < Math.min(raw.length, bytes); i += 16) {
    const chunk = Array.from({ length: Math.min(16, raw.length - i) }, (_, j) => raw.charCodeAt(i + j));
    const hex = chunk.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = chunk.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return text.endsWith('\n') ? n - 1 : n;
}

/** One file or page read with `GET /v1/read`: highlighted with line numbers, Markdown rendered, binary described. */
export function FileView({ api, file, onClose }: { api: Api; file: FileRef; onClose: () => void }): JSX.Element {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [rendered, setRendered] = useState(true);
  const section = useRef<HTMLElement>(null);


  useEffect(() => {
    const controller = new AbortController();
    setLoaded(null);
    setProblem(null);
    setBusy(true);
    api
      .json<ReadResponse>(readUrl(file.target, file.path), { signal: controller.signal })
      .then((first) => setLoaded({ first, content: first.content, nextOffset: first.truncated ? first.next_offset : null }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setProblem(asProblem(error));
      })
      .finally(() => setBusy(false));
    return () => controller.abort();
  }, [api, file.target, file.path]);

  // An opened file is brought into view (the listing above it may be long): its heading once it is
  // read (the page is then tall enough to scroll it to the top), or the line to show.
  useEffect(() => {
    if (loaded === null) return;
    if (file.line === undefined) section.current?.scrollIntoView({ block: 'start' });
    else document.getElementById(`L${file.line}`)?.scrollIntoView({ block: 'center' });
  }, [loaded, file.line]);

  useEffect(() => {
    if (problem !== null) section.current?.scrollIntoView({ block: 'nearest' });
  }, [problem]);

  const more = async (): Promise<void> => {
    if (loaded === null || loaded.nextOffset === null) return;
    setBusy(true);
    try {
      const next = await api.json<ReadResponse>(readUrl(file.target, file.path, loaded.nextOffset));
      setLoaded({ ...loaded, content: loaded.content + next.content, nextOffset: next.truncated ? next.next_offset : null });
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const first = loaded?.first ?? null;
  const text = loaded !== null && first?.encoding === 'utf-8' ? loaded.content : null;
  const language = first === null ? null : highlightLanguage(first.language, first.path);
  const isMarkdown = first !== null && (first.language === 'markdown' || /\.(md|markdown)$/i.test(first.path) || first.kind === 'page');
  const code = useMemo(() => (text === null ? null : highlighted(text, language)), [text, language]);
  const lines = text === null ? 0 : lineCount(text);

  return (
    <section ref={section} class="file" aria-labelledby="file-heading" data-testid="file-view">
      <div class="file-head">
        <h3 id="file-heading" tabIndex={-1}>
          <code>{file.path}</code>
        </h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close file
        </button>
      </div>
      <ProblemBox problem={problem} idPrefix="file-error" />
      {busy && loaded === null ? <p role="status">Reading {file.path}…</p> : null}
      {first !== null ? (
        <p class="hint" data-testid="file-facts">
          {first.canonical_target} · {first.language ?? 'unknown language'} · {formatBytes(first.byte_size)}
          {first.line_count !== null ? ` · ${first.line_count.toLocaleString('en')} lines` : ''}
          {first.intent !== null ? ` · ${first.intent}` : ''}
        </p>
      ) : null}
      {first !== null && first.encoding === 'base64' && loaded !== null ? (
        <div data-testid="binary-file">
          <p>
            <strong>Binary file</strong> ({formatBytes(first.byte_size)}): not shown as text. Its first bytes:
          </p>
          <pre class="hex" aria-label="Hexadecimal dump of the first bytes">{hexPreview(loaded.content)}</pre>
        </div>
      ) : null}
      {text !== null && isMarkdown ? (
        <p>
          <button type="button" class="secondary" aria-pressed={rendered} onClick={() => setRendered(!rendered)}>
            {rendered ? 'Show the source' : 'Show it rendered'}
          </button>
        </p>
      ) : null}
      {text !== null && isMarkdown && rendered ? <Markdown text={text} /> : null}
      {text !== null && !(isMarkdown && rendered) ? (
        <div class="code-view" tabIndex={0} role="region" aria-label={`Source of ${file.path}`}>
          <pre class="gutter" aria-hidden="true">
            {Array.from({ length: lines }, (_, i) => (
              <span key={i} id={`L${i + 1}`} class={file.line === i + 1 ? 'target-line' : undefined}>
                {i + 1}
                {'\n'}
              </span>
            ))}
          </pre>
          <pre class="code">
            <code class="hljs" data-testid="file-content" data-language={language ?? 'plaintext'}>
              {code}
            </code>
          </pre>
        </div>
      ) : null}
      {loaded !== null && loaded.nextOffset !== null && first?.encoding === 'utf-8' ? (
        <p>
          <button type="button" disabled={busy} onClick={() => void more()}>
            Read more (from byte {loaded.nextOffset.toLocaleString('en')})
          </button>
        </p>
      ) : null}
    </section>
  );
}
