import type { Inventory } from '../../model/model.js';
import { parseToml, StructureBounds } from '../../model/safe-parse.js';
import { GraphBuilder } from '../shared/builder.js';
import { arr, obj, sha256Integrity, str } from './data.js';
import { pep503 } from './names.js';

/**
 * pylock.toml (PEP 751): one component per `[[packages]]` entry — a registry release, or a VCS,
 * directory or archive source — with its first sha256 hash and its `dependencies` as edges. The
 * file records no scope.
 */
export function parsePylock(path: string, text: string): Inventory {
  const doc = parseToml(path, text);
  const packages = arr(doc['packages']).map(obj);
  new StructureBounds(path).entries(packages.length);
  const b = new GraphBuilder(path, 'pypi', pep503);
  for (const p of packages) {
    const name = str(p['name']);
    if (name === null) continue;
    const vcs = obj(p['vcs']);
    const archive = obj(p['archive']);
    const directory = obj(p['directory']);
    const version = str(p['version']) ?? str(vcs['commit-id']);
    const hashes = obj(obj(p['sdist'])['hashes']);
    const wheelHashes = obj(obj(arr(p['wheels'])[0])['hashes']);
    const integrity = sha256Integrity(`sha256:${str(hashes['sha256']) ?? str(wheelHashes['sha256']) ?? str(obj(archive['hashes'])['sha256']) ?? ''}`);
    b.add(`${pep503(name)}@${version ?? ''}`, {
      name,
      version,
      source: str(vcs['url']) !== null ? 'git' : str(archive['url']) !== null ? 'tarball' : str(directory['path']) !== null ? 'file' : 'registry',
      resolved: str(vcs['url']) ?? str(archive['url']) ?? str(directory['path']),
      integrity,
    });
  }
  for (const p of packages) {
    const name = str(p['name']);
    const from = name === null ? undefined : b.get(`${pep503(name)}@${str(p['version']) ?? str(obj(p['vcs'])['commit-id']) ?? ''}`);
    if (!from) continue;
    for (const d of arr(p['dependencies']).map(obj)) {
      const dep = str(d['name']);
      const target = dep === null ? null : b.resolve(dep, (o) => str(d['version']) === null || o.version === str(d['version']));
      if (target) b.edge(from, target, 'prod');
    }
  }
  const version = str(doc['lock-version']);
  return b.finish({ kind: 'pylock.toml', version, scopes: 'unknown' });
}
