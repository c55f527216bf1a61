import type { Declaration, Inventory } from '../../model/model.js';
import { INPUT_LIMITS, limitExceeded } from '../../model/safe-parse.js';
import { GraphBuilder } from '../shared/builder.js';
import { sha256Integrity } from './data.js';
import { parseRequirement, pep503, pinnedVersion } from './names.js';

/** Requirement files whose names say they are for development (tests, linting, docs). */
const DEV_NAME = /(^|[/_.-])(dev|develop|development|test|tests|testing|lint|docs?|ci|typing)([/_.-]|$)/i;

/** `requirements-dev.txt`, `dev-requirements.txt`, `requirements/test.txt`: dev by their name. */
export function isDevRequirements(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1).replace(/\.(txt|in)$/, '');
  const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return DEV_NAME.test(name.replace(/requirements?/i, '')) || (folder.endsWith('requirements') && DEV_NAME.test(name));
}

/** Logical lines: comments dropped, `\` continuations joined. */
function logicalLines(path: string, text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let current = '';
  let start = 0;
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const physical = raw[i] ?? '';
    if (physical.length > INPUT_LIMITS.maxLineLength) throw limitExceeded(path, 'maxLineLength');
    if (current === '') start = i + 1;
    const noComment = physical.replace(/(^|\s)#.*$/, '');
    if (noComment.endsWith('\\')) {
      current += `${noComment.slice(0, -1)} `;
      continue;
    }
    current += noComment;
    if (current.trim() !== '') out.push({ line: current.trim(), number: start });
    current = '';
  }
  if (current.trim() !== '') out.push({ line: current.trim(), number: start });
  return out;
}

/** `git+https://host/repo.git@ref#egg=name` → name, repository URL and ref. */
function vcsRequirement(spec: string): { name: string; url: string; ref: string | null } | null {
  const match = /^(git|hg|svn|bzr)\+([^#\s]+?)(?:@([^#@/\s]+))?(?:#(.*))?$/.exec(spec);
  if (!match?.[2]) return null;
  const egg = /(?:^|&)egg=([A-Za-z0-9._-]+)/.exec(match[4] ?? '')?.[1];
  const name = egg ?? match[2].replace(/\.git$/, '').split('/').pop() ?? '';
  return name === '' ? null : { name, url: `${match[1]}+${match[2]}`, ref: match[3] ?? null };
}

/** `-r other.txt`, `--requirement=other.txt`, `-c constraints.txt`: the file named, as written. */
const INCLUDE = /^(?:-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?=[^\s-]))(\S+)$/;

/** The upload path a `-r`/`-c` line names, relative to the including file's folder; null for a URL or a path leaving the upload. */
function includedPath(path: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target) || target.startsWith('/')) return null;
  const parts = path.includes('/') ? path.slice(0, path.lastIndexOf('/')).split('/') : [];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return null;
  }
  return parts.join('/');
}

/**
 * requirements*.txt (pip's format, pip-compile's included): a pinned requirement (`==`/`===`)
 * is a component, with its first `--hash`; VCS requirements are git components at their ref;
 * everything else (ranges, bare names, local paths) stays a declaration. Option lines (`-i`,
 * `--extra-index-url`, `-f`…) are ignored; `-r`/`-c` lines are returned as `includes` (upload
 * paths), for the caller to join the files into one environment (see join-requirements.ts).
 * Scope comes from the file's name: development-named files are dev, the others required.
 */
export function parseRequirements(path: string, text: string): { inventory: Inventory; pinned: number; includes: string[] } {
  const b = new GraphBuilder(path, 'pypi', pep503);
  const dev = isDevRequirements(path);
  const lines = logicalLines(path, text);
  if (lines.length > INPUT_LIMITS.maxEntries) throw limitExceeded(path, 'maxEntries');
  let pinned = 0;
  const includes: string[] = [];
  for (const { line } of lines) {
    const include = INCLUDE.exec(line)?.[1];
    const included = include === undefined ? null : includedPath(path, include);
    if (included !== null) includes.push(included);
    const hashes = [...line.matchAll(/--hash[=\s]+(\S+)/g)].map((m) => m[1]);
    let spec = line.replace(/\s--hash[=\s]+\S+/g, '').trim();
    let editable = false;
    if (/^(-e|--editable)\s+/.test(spec)) {
      editable = true;
      spec = spec.replace(/^(-e|--editable)\s+/, '');
    } else if (spec.startsWith('-')) {
      continue;
    }
    const vcs = vcsRequirement(spec.split(/\s|;/)[0] ?? '');
    if (vcs !== null) {
      b.add(pep503(vcs.name), { name: vcs.name, version: vcs.ref, source: 'git', resolved: vcs.ref === null ? vcs.url : `${vcs.url}@${vcs.ref}`, dev });
      continue;
    }
    const req = parseRequirement(spec);
    const version = req === null ? null : pinnedVersion(req.specifier);
    if (req === null || editable || req.url !== null || version === null) {
      if (req !== null) b.unresolved(declaration(path, req.name, req.url ?? req.specifier, dev));
      continue;
    }
    pinned++;
    b.add(pep503(req.name), { name: req.name, version, source: 'registry', integrity: sha256Integrity(hashes[0]), dev });
  }
  return { inventory: b.finish({ kind: 'requirements.txt', version: null, scopes: 'recorded' }), pinned, includes };
}

function declaration(manifest: string, name: string, range: string, dev: boolean): Declaration {
  return { manifest, name, range, kind: dev ? 'dev-requirements' : 'requirements', ecosystem: 'pypi' };
}
