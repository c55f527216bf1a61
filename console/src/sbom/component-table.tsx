import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { SortKey } from './analysis.js';
import type { Component } from './document.js';

/** Fixed row height (px, matches `.vrow` in the style sheet): what makes virtualising exact. */
export const ROW_HEIGHT = 34;
const OVERSCAN = 8;

const COLUMNS: readonly { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'version', label: 'Version' },
  { key: 'ecosystem', label: 'Ecosystem' },
  { key: 'scope', label: 'Scope' },
  { key: 'license', label: 'License' },
];

export interface ComponentTableProps {
  readonly rows: readonly Component[];
  readonly sort: SortKey;
  readonly descending: boolean;
  readonly onSort: (key: SortKey) => void;
  readonly selected: string | null;
  readonly onSelect: (ref: string) => void;
}

function rowId(index: number): string {
  return `component-row-${index}`;
}

/**
 * The components as a grid that renders only the rows in view (plus a few): 10,000 rows cost what
 * thirty do. One tab stop; arrow keys, Page Up/Down, Home and End move the active row, Enter selects.
 */
export function ComponentTable({ rows, sort, descending, onSort, selected, onSelect }: ComponentTableProps): JSX.Element {
  const body = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);
  const [active, setActive] = useState(0);
  const frame = useRef(0);

  useLayoutEffect(() => {
    const el = body.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 480));
    observer.observe(el);
    setHeight(el.clientHeight || 480);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    setActive(0);
    if (body.current) body.current.scrollTop = 0;
    setScrollTop(0);
  }, [rows]);

  const onScroll = (): void => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setScrollTop(body.current?.scrollTop ?? 0));
  };

  const reveal = (index: number): void => {
    const el = body.current;
    if (el === null) return;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    setScrollTop(el.scrollTop);
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: active + 1, ArrowUp: active - 1, PageDown: active + page, PageUp: active - page, Home: 0, End: rows.length - 1 };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      const next = Math.max(0, Math.min(rows.length - 1, target));
      setActive(next);
      reveal(next);
      return;
    }
    if (event.key === 'Enter' || event.key === ' ') {
      const row = rows[active];
      if (row) {
        event.preventDefault();
        onSelect(row.ref);
      }
    }
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const visible = rows.slice(first, last);
  return (
    <div class="vtable" role="grid" aria-label="Components" aria-rowcount={rows.length + 1} aria-colcount={COLUMNS.length} data-testid="component-table">
      <div class="vrow vhead" role="row" aria-rowindex={1}>
        {COLUMNS.map((c) => (
          <div key={c.key} role="columnheader" aria-sort={sort === c.key ? (descending ? 'descending' : 'ascending') : 'none'}>
            <button type="button" class="link" onClick={() => onSort(c.key)} aria-label={`Sort by ${c.label.toLowerCase()}${sort === c.key ? (descending ? ', now descending' : ', now ascending') : ''}`}>
              {c.label}
              <span aria-hidden="true">{sort === c.key ? (descending ? ' ▼' : ' ▲') : ''}</span>
            </button>
          </div>
        ))}
      </div>
      <div
        class="vbody"
        ref={body}
        tabIndex={0}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        aria-activedescendant={rows.length > 0 ? rowId(active) : undefined}
        aria-label="Component rows: arrow keys move, Enter shows the details"
        data-testid="component-rows"
      >
        <div class="vspacer" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
          {visible.map((c, i) => {
            const index = first + i;
            return (
              <div
                key={c.ref}
                id={rowId(index)}
                class={`vrow${c.ref === selected ? ' selected' : ''}${index === active ? ' active' : ''}`}
                role="row"
                aria-rowindex={index + 2}
                aria-selected={c.ref === selected}
                data-ref={c.ref}
                style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
                onClick={() => {
                  setActive(index);
                  onSelect(c.ref);
                }}
              >
                <div role="gridcell" class="cell-name" title={c.name}>{c.name}</div>
                <div role="gridcell" title={c.version}>{c.version}</div>
                <div role="gridcell">{c.ecosystem}</div>
                <div role="gridcell">{c.scope}</div>
                <div role="gridcell" class={`license license-${c.license.kind}`} title={c.license.label}>{c.license.label}</div>
              </div>
            );
          })}
        </div>
        {rows.length === 0 ? <p class="hint empty">No component matches.</p> : null}
      </div>
    </div>
  );
}
