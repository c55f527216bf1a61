import type { Claim } from '../types.js';
import type { InputFile } from '../../model/types.js';

/**
 * Go's files have names no other ecosystem uses, so the name decides; a renamed copy (an upload's
 * `service.go.mod`) is recognised by content: a go.mod opens with its `module` directive and soon
 * states `go`; a go.sum's lines are `<module> <version>[/go.mod] h1:<hash>`. Only the first 4 KiB
 * are looked at. The rest is read by `build`, which reports a malformed file as a problem.
 * go.mod records the build list (Go ≥ 1.17 lists every module providing a package): the lockfile.
 * go.sum, go.work and go.work.sum are read only beside go.mod files: a go.work alone names
 * directories, not modules.
 */
const BY_NAME: Readonly<Record<string, Omit<Claim, 'by'>>> = {
  'go.mod': { kind: 'go-mod', role: 'lockfile' },
  'go.sum': { kind: 'go-sum', role: 'auxiliary' },
  'go.work': { kind: 'go-work', role: 'auxiliary' },
  'go.work.sum': { kind: 'go-sum', role: 'auxiliary' },
};

const SNIFF_BYTES = 4096;
const GO_SUM_LINE = /^\S+ v\d+\.\d+\.\d+\S* h1:[A-Za-z0-9+/]{43}=\r?$/;

export function claimGoFile(file: InputFile): Claim | null {
  const base = file.path.slice(file.path.lastIndexOf('/') + 1);
  const named = Object.hasOwn(BY_NAME, base) ? BY_NAME[base] : undefined;
  if (named !== undefined) return { ...named, by: 'name' };
  const lines = file.content.slice(0, SNIFF_BYTES).split('\n');
  if (GO_SUM_LINE.test(lines[0] ?? '')) return { kind: 'go-sum', role: 'auxiliary', by: 'content' };
  // Line by line, not one regular expression: nothing here may backtrack on hostile text.
  const first = lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('//'));
  if (first === -1 || !/^\s*module\s+\S/.test(lines[first] ?? '')) return null;
  return lines.slice(first + 1).some((l) => /^\s*go\s+1\.\d+/.test(l)) ? { kind: 'go-mod', role: 'lockfile', by: 'content' } : null;
}
