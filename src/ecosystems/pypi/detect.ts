import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';
import { parseRequirement } from './names.js';

const BY_NAME: Readonly<Record<string, Claim>> = {
  'poetry.lock': { kind: 'poetry-lock', role: 'lockfile', by: 'name' },
  'uv.lock': { kind: 'uv-lock', role: 'lockfile', by: 'name' },
  'pdm.lock': { kind: 'pdm-lock', role: 'lockfile', by: 'name' },
  'Pipfile.lock': { kind: 'pipfile-lock', role: 'lockfile', by: 'name' },
  'pylock.toml': { kind: 'pylock', role: 'lockfile', by: 'name' },
  'pyproject.toml': { kind: 'pyproject', role: 'manifest', by: 'name' },
  Pipfile: { kind: 'pipfile', role: 'manifest', by: 'name' },
  'setup.cfg': { kind: 'setup-cfg', role: 'manifest', by: 'name' },
};

/** pip's file names: `requirements.txt`, `requirements-dev.txt`, `dev-requirements.in`, `constraints.txt`. */
const REQUIREMENTS_NAME = /^(.*[-_.])?(requirements|constraints)([-_.].*)?\.(txt|in)$/i;

/** Whether most lines of a `.txt`/`.in` file read as requirements (a renamed requirements file). */
function looksLikeRequirements(content: string): boolean {
  let lines = 0;
  let requirements = 0;
  for (const raw of content.slice(0, 8_192).split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('-')) continue;
    lines++;
    if (/^[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[^\]]*\])?\s*(==|>=|<=|~=|!=|<|>|@|;|$)/.test(line) && parseRequirement(line) !== null) requirements++;
  }
  return lines > 0 && requirements / lines >= 0.8 && requirements >= 1 && /==|>=|~=/.test(content);
}

/** PEP 751 lock files: `pylock.toml` and `pylock.<name>.toml`. */
const PYLOCK = /^pylock\.[^/]+\.toml$/;

export function claimPython(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const known = BY_NAME[name];
  if (known) return known;
  if (PYLOCK.test(name)) return { kind: 'pylock', role: 'lockfile', by: 'name' };
  if (REQUIREMENTS_NAME.test(name)) return { kind: name.endsWith('.in') ? 'requirements-in' : 'requirements', role: name.endsWith('.in') ? 'manifest' : 'lockfile', by: 'name' };
  if (/\.(txt|in)$/.test(name) && looksLikeRequirements(file.content)) {
    return { kind: name.endsWith('.in') ? 'requirements-in' : 'requirements', role: name.endsWith('.in') ? 'manifest' : 'lockfile', by: 'content' };
  }
  return null;
}
