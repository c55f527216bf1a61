import { componentFacts, type RenderInput } from './input.js';
import type { BoundedOutput } from './output.js';

function licenseText(license: ReturnType<typeof componentFacts>[number]['license']): string {
  if (license === null) return 'unknown';
  return license.kind === 'expression' ? license.expression : `"${license.name}"`;
}

/** A readable inventory: a summary, one line per component, then what stayed unresolved. */
export function renderText(input: RenderInput, out: BoundedOutput): void {
  const facts = componentFacts(input);
  const { inventory, evidence } = input;
  out.line('pkgscope inventory');
  out.line(`generated:        ${input.generatedAt.toISOString()}`);
  out.line(`completeness:     ${evidence.completeness}`);
  out.line(`resolution basis: ${evidence.basis}`);
  out.line(`components:       ${facts.length} (${inventory.roots.length} project roots)`);
  for (const l of inventory.lockfiles) out.line(`lockfile:         ${l.path} (${l.kind} ${l.version ?? ''}, ${l.entries} entries)`.replace(' , ', ', '));
  out.line();
  const label = (id: string): string => input.ecosystemLabels?.get(id) ?? id;
  const rows = facts.map((f) => [
    label(f.occurrence.ecosystem),
    f.occurrence.name,
    f.occurrence.version ?? '-',
    licenseText(f.license),
    f.isRoot ? 'project' : f.scope,
    f.occurrence.installPath === '' ? f.occurrence.lockfile : f.occurrence.installPath,
  ]);
  const header = ['ECOSYSTEM', 'NAME', 'VERSION', 'LICENSE', 'SCOPE', 'PATH'];
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const format = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  out.line(format(header));
  for (const row of rows) out.line(format(row));
  if (inventory.declarations.length > 0) {
    out.line();
    out.line('Unresolved declarations:');
    for (const d of inventory.declarations) {
      out.line(`  ${d.manifest}: ${d.name}${d.range === '' ? '' : ` ${d.range}`} (${label(d.ecosystem ?? 'npm')} ${d.kind})`);
    }
  }
  out.line();
  out.line('Notices:');
  out.line(`  ${evidence.notice}`);
}
