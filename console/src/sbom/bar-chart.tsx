import type { ComponentChildren, JSX } from 'preact';
import type { Slice } from './analysis.js';

const ROW = 26;
const LABEL_WIDTH = 150;
const BAR_WIDTH = 140;
const COUNT_WIDTH = 50;
const MAX_LABEL = 22;

function shorten(label: string): string {
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

/**
 * A horizontal bar chart drawn as SVG (no chart library, no inline style: colours come from CSS
 * classes). The figure is an image with a text alternative; the same numbers are in its caption list
 * for screen readers and narrow screens.
 */
export function BarChart({ id, title, slices, total, legend }: { id: string; title: string; slices: readonly Slice[]; total: number; legend?: ComponentChildren }): JSX.Element {
  const max = Math.max(1, ...slices.map((s) => s.count));
  const height = slices.length * ROW + 4;
  const width = LABEL_WIDTH + BAR_WIDTH + COUNT_WIDTH;
  const summary = slices.map((s) => `${s.label}: ${s.count}`).join(', ');
  return (
    <figure class="chart" data-testid={id} aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>
        {title} <span class="hint">({total.toLocaleString('en')} components)</span>
      </figcaption>
      {slices.length === 0 ? (
        <p class="hint">Nothing to show.</p>
      ) : (
        <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={`${title}: ${summary}`} preserveAspectRatio="xMinYMin meet">
          {slices.map((s, i) => {
            const y = i * ROW + 2;
            const w = Math.max(2, Math.round((s.count / max) * BAR_WIDTH));
            return (
              <g key={s.label} class={`bar bar-${s.kind ?? 'plain'}`} data-label={s.label} data-count={s.count}>
                <title>{`${s.label}: ${s.count} (${((s.count / Math.max(total, 1)) * 100).toFixed(1)} %)`}</title>
                <text x={LABEL_WIDTH - 8} y={y + ROW / 2} text-anchor="end" dominant-baseline="middle" class="bar-label">
                  {shorten(s.label)}
                </text>
                <rect x={LABEL_WIDTH} y={y + 3} width={w} height={ROW - 8} rx="3" />
                <text x={LABEL_WIDTH + w + 6} y={y + ROW / 2} dominant-baseline="middle" class="bar-count">
                  {s.count.toLocaleString('en')}
                </text>
              </g>
            );
          })}
        </svg>
      )}
      {legend}
    </figure>
  );
}
