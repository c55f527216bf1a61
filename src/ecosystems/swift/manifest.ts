import { identityOf } from './resolved.js';

/**
 * `Package.swift` read as text, never executed (it is a Swift program): the package's `name:` and
 * every `.package(…)` dependency with its literal location and requirement. A dependency built
 * from variables or conditions is read where its literal text is; what is computed is not guessed.
 */

export interface SwiftDependency {
  /** The location's identity (see `identityOf`), or `scope.name` for a registry dependency. */
  readonly identity: string;
  readonly location: string;
  /** The requirement as SwiftPM states it: `from: 1.0.0`, `exact: 1.2.3`, `1.0.0..<2.0.0`, `branch: main`, `revision: <sha>`, or '' for a local path. */
  readonly requirement: string;
  readonly local: boolean;
}

export interface SwiftManifest {
  readonly name: string | null;
  readonly dependencies: readonly SwiftDependency[];
}

const MAX_CALL = 2000;

/** The text of each `.package(` call up to its closing parenthesis (strings and nesting respected). */
function packageCalls(source: string): string[] {
  const calls: string[] = [];
  for (let at = source.indexOf('.package('); at !== -1; at = source.indexOf('.package(', at + 1)) {
    let depth = 0;
    let inString = false;
    const start = at + '.package'.length;
    for (let i = start; i < source.length && i - start < MAX_CALL; i++) {
      const c = source[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        calls.push(source.slice(start + 1, i));
        break;
      }
    }
  }
  return calls;
}

function requirementOf(call: string): string {
  const quoted = (label: string): string | null => new RegExp(`${label}\\s*:\\s*"([^"]*)"`).exec(call)?.[1] ?? null;
  const range = /"([^"]+)"\s*(\.\.<|\.\.\.)\s*"([^"]+)"/.exec(call);
  if (range) return `${range[1] ?? ''}${range[2] ?? ''}${range[3] ?? ''}`;
  const fn = /\.(upToNextMajor|upToNextMinor|exact|branch|revision)\s*\(\s*(?:from\s*:\s*)?"([^"]*)"/.exec(call);
  if (fn) return `${fn[1] === 'upToNextMajor' ? 'from' : (fn[1] ?? '')}: ${fn[2] ?? ''}`;
  for (const label of ['from', 'exact', 'branch', 'revision']) {
    const value = quoted(label);
    if (value !== null) return `${label}: ${value}`;
  }
  return '';
}

export function readPackageSwift(source: string): SwiftManifest {
  const name = /\bPackage\s*\(\s*name\s*:\s*"([^"]+)"/.exec(source)?.[1] ?? null;
  const dependencies: SwiftDependency[] = [];
  for (const call of packageCalls(source)) {
    const url = /\burl\s*:\s*"([^"]+)"/.exec(call)?.[1];
    const path = /\bpath\s*:\s*"([^"]+)"/.exec(call)?.[1];
    const id = /\bid\s*:\s*"([^"]+)"/.exec(call)?.[1];
    const location = url ?? path ?? id;
    if (location === undefined) continue;
    dependencies.push({
      identity: id === undefined ? identityOf(location) : id.toLowerCase(),
      location,
      requirement: path !== undefined && url === undefined ? '' : requirementOf(call),
      local: path !== undefined && url === undefined,
    });
  }
  return { name, dependencies };
}
