/**
 * A `Podfile` read as text, never run (it is Ruby): `pod 'Name'` lines with a literal version
 * requirement or `:path`/`:git`/`:podspec` option, and the target they sit in (`target 'AppTests'
 * do … end`), so pods only test targets declare can be told apart.
 */

export interface PodfileDeclaration {
  readonly name: string;
  /** `~> 1.0`, `>= 2, < 3`, or the external source (`path: ../x`); '' when none. */
  readonly requirement: string;
  readonly target: string | null;
  readonly line: number;
}

const POD = /^\s*pod\s+['"]([^'"]+)['"]\s*(.*)$/;

export function readPodfile(content: string): PodfileDeclaration[] {
  const out: PodfileDeclaration[] = [];
  const targets: (string | null)[] = [];
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/#.*$/, '').slice(0, 2000);
    const target = /^\s*(?:abstract_)?target\s+['"]([^'"]+)['"]\s*do\b/.exec(line);
    if (target !== null) {
      targets.push(target[1] ?? null);
      continue;
    }
    if (/^\s*(?:def\s|if\s|unless\s|.*\bdo\s*(\|[^|]*\|)?\s*$)/.test(line)) {
      targets.push(targets.at(-1) ?? null);
      continue;
    }
    if (/^\s*end\b/.test(line)) {
      targets.pop();
      continue;
    }
    const pod = POD.exec(line);
    if (pod === null) continue;
    const rest = pod[2] ?? '';
    const versions = [...rest.matchAll(/^\s*,\s*['"]([^'"]+)['"]|(?<=['"])\s*,\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? '');
    const external = /:?(path|git|podspec)\s*(?:=>|:)\s*['"]([^'"]+)['"]/.exec(rest);
    out.push({
      name: pod[1] ?? '',
      requirement: versions.length > 0 ? versions.join(', ') : external === null ? '' : `${external[1] ?? ''}: ${external[2] ?? ''}`,
      target: targets.at(-1) ?? null,
      line: i + 1,
    });
  }
  return out;
}
