import { componentFacts, type ComponentFacts, type RenderInput } from './input.js';
import type { BoundedOutput } from './output.js';
import { table, wrap } from './text-layout.js';
import { vulnerabilityLines } from '../../advisories/render/text.js';

function licenseText(license: ComponentFacts['license']): string {
  if (license === null) return 'unknown';
  return license.kind === 'expression' ? license.expression : `"${license.name}"`;
}

/** Widest NAME, VERSION, LICENSE and SCOPE columns; PATH takes the rest of the line. */
const COLUMN_CAPS = [9, 36, 20, 20, 8];
const LABEL_INDENT = ' '.repeat(18);

/** A readable inventory within 120 columns: a summary, one row per component, then what stayed unresolved. */
export function renderText(input: RenderInput, out: BoundedOutput): void {
  // Fitted names and versions (a control character would break the table); the text shows no
  // registry links or people, so its notice is the analysis's own.
  const facts = componentFacts(input).components;
  const { inventory, evidence } = input;
  const lines = (text: string, indent: string): void => {
    for (const line of wrap(text, undefined, indent)) out.line(line);
  };
  out.line('pkgscope inventory');
  out.line(`generated:        ${input.generatedAt.toISOString()}`);
  out.line(`completeness:     ${evidence.completeness}`);
  out.line(`resolution basis: ${evidence.basis}`);
  out.line(`components:       ${facts.length} (${inventory.roots.length} project roots)`);
  for (const l of inventory.lockfiles) lines(`lockfile:         ${l.path} (${l.kind} ${l.version ?? ''}, ${l.entries} entries)`.replace(' , ', ', '), LABEL_INDENT);
  out.line();
  const label = (id: string): string => input.ecosystemLabels?.get(id) ?? id;
  const rows = facts.map((f) => [
    label(f.occurrence.ecosystem),
    f.name,
    f.version ?? '-',
    licenseText(f.license),
    f.isRoot ? 'project' : f.scope,
    f.occurrence.installPath === '' ? f.occurrence.lockfile : f.occurrence.installPath,
  ]);
  for (const line of table(['ECOSYSTEM', 'NAME', 'VERSION', 'LICENSE', 'SCOPE', 'PATH'], rows, COLUMN_CAPS)) out.line(line);
  if (input.vulnerabilities !== undefined) {
    // Advisories matched to the inventory (issue #33).
    out.line();
    for (const line of vulnerabilityLines(input.vulnerabilities, new Map(facts.map((f) => [f.occurrence.ref, { name: f.name, version: f.version }])))) out.line(line);
  }
  if (inventory.declarations.length > 0) {
    out.line();
    out.line('Unresolved declarations:');
    for (const d of inventory.declarations) {
      lines(`  ${d.manifest}: ${d.name}${d.range === '' ? '' : ` ${d.range}`} (${label(d.ecosystem ?? 'npm')} ${d.kind})`, '    ');
    }
  }
  out.line();
  out.line('Notices:');
  lines(`  ${evidence.notice}`, '  ');
}
