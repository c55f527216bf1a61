import { describe, expect, it } from 'vitest';
import { golangEcosystem } from '../../../../src/ecosystems/golang/analysis.js';
import { buildGo, components, coordinate, goFixture, requiresOf, rootsOf } from './helpers.js';

const eco = golangEcosystem(null);

describe('a main module (go.mod with every directive, go.sum)', () => {
  const files = goFixture('module');
  const goMod = files.find((f) => f.path === 'go.mod')?.content ?? '';
  const goSum = files.find((f) => f.path === 'go.sum')?.content ?? '';

  it('gives one component per build-list module, replacements applied, local and excluded ones left out', async () => {
    const result = await buildGo(files);
    expect(result.problems).toEqual([]);
    const got = components(result).map(coordinate).sort();
    expect(got).toEqual(
      [
        'github.com/BurntSushi/toml@v1.4.0',
        'github.com/beorn7/perks@v1.0.1',
        'github.com/cespare/xxhash/v2@v2.3.0',
        'github.com/containous/go-http-auth@v0.4.1-0.20200324110947-a37a7636d23e',
        'github.com/containous/mux@v0.0.0-20250523120546-41b6ec3aed59',
        'github.com/docker/cli@v27.3.1+incompatible',
        'github.com/munnerz/goautoneg@v0.0.0-20191010083416-a7dc8b61c822',
        'github.com/prometheus/client_golang@v1.20.5',
        'github.com/prometheus/client_model@v0.6.1',
        'github.com/prometheus/common@v0.55.0',
        'github.com/prometheus/procfs@v0.15.1',
        'go.uber.org/multierr@v1.11.0',
        'go.uber.org/zap@v1.27.0',
        'golang.org/x/sys@v0.28.0',
        'golang.org/x/tools@v0.28.0',
        'google.golang.org/protobuf@v1.34.2',
        'gopkg.in/yaml.v3@v3.0.1',
      ].sort(),
    );
    // Independent count: the requires of the file, less the excluded one and the two local replacements.
    const requires = requiresOf(goMod);
    expect(requires).toHaveLength(20);
    expect(got).toHaveLength(requires.length - 1 - 2);
    expect(components(result).filter((o) => o.facts['indirect'] === 'true')).toHaveLength(requires.filter(([p, , ind]) => ind && p !== 'github.com/acme/shared').length);
    expect(new Set(result.inventory.occurrences.map((o) => o.ref)).size).toBe(result.inventory.occurrences.length);
  });

  it('makes the main module and the modules replaced by directories roots, never dependencies', async () => {
    const result = await buildGo(files);
    const roots = rootsOf(result).map((o) => [o.name, o.version, o.source, o.installPath]);
    expect(roots).toEqual([
      ['github.com/acme/widget/v2', null, 'root', ''],
      ['github.com/acme/widget-internal', null, 'workspace', 'internal/widget'],
      ['github.com/acme/shared', null, 'workspace', '../shared'],
    ]);
    const main = rootsOf(result)[0];
    expect(main?.facts).toEqual({ go: '1.23.0', toolchain: 'go1.23.4', deprecated: 'use github.com/acme/widget/v3 instead.' });
    for (const r of rootsOf(result)) expect(eco.purl(r)).toBeNull();
  });

  it('draws an edge from the main module to every module it requires, with the declared version', async () => {
    const result = await buildGo(files);
    const [main] = rootsOf(result);
    const byRef = new Map(result.inventory.occurrences.map((o) => [o.ref, o]));
    const edges = (main?.dependencies ?? []).map((e) => `${coordinate(byRef.get(e.ref)!)} ${e.kind} ${e.range ?? ''}`);
    expect(edges).toHaveLength(19);
    expect(edges).toContain('github.com/containous/mux@v0.0.0-20250523120546-41b6ec3aed59 prod v1.8.1');
    expect(edges).toContain('github.com/acme/widget-internal@- prod v0.0.0-00010101000000-000000000000');
    expect(edges).toContain('github.com/acme/shared@- prod v1.2.0');
    // Nothing else has edges: go.mod does not say which module requires which.
    for (const o of components(result)) expect(o.dependencies).toEqual([]);
  });

  it('records replacements, indirect requirements, tools and go.sum hashes as facts', async () => {
    const result = await buildGo(files);
    const find = (name: string) => components(result).find((o) => o.name === name);
    expect(find('github.com/containous/mux')?.facts['replaces']).toBe('github.com/gorilla/mux@v1.8.1');
    expect(find('github.com/containous/go-http-auth')?.facts['replaces']).toBe('github.com/abbot/go-http-auth@v0.4.0');
    // A replacement for another version of zap (v1.26.0) does not apply to the selected v1.27.0.
    expect(find('go.uber.org/zap')?.facts['replaces']).toBeUndefined();
    expect(find('github.com/prometheus/common')?.facts['indirect']).toBe('true');
    expect(find('github.com/BurntSushi/toml')?.facts['indirect']).toBeUndefined();
    expect(find('golang.org/x/tools')?.facts['tool']).toBe('golang.org/x/tools/cmd/stringer');
    const sumLine = goSum.split('\n').find((l) => l.startsWith('github.com/containous/mux v0.0.0-20250523120546-41b6ec3aed59 '));
    expect(find('github.com/containous/mux')?.facts['go_sum']).toBe(sumLine?.split(' ')[2]);
    for (const o of components(result)) {
      expect(o.facts['go_sum']).toMatch(/^h1:[A-Za-z0-9+/]{43}=$/);
      // h1 is a hash of the module's file tree, not of a download: never a component hash.
      expect(o.integrity).toBeNull();
      expect(o.scopeKnown).toBe(false);
      expect(o.source).toBe('registry');
    }
  });

  it('lists the excluded requirement as a declaration and counts go.sum-only modules in a notice', async () => {
    const { inventory } = await buildGo(files);
    expect(inventory.declarations).toEqual([{ manifest: 'go.mod', name: 'github.com/ugorji/go', range: 'v1.1.4', kind: 'excluded', ecosystem: 'golang' }]);
    expect(inventory.notices.some((n) => n.includes('go.sum: 3 module version(s) appear only in go.sum (1 with a content hash, 2 with a go.mod hash only'))).toBe(true);
    expect(inventory.notices.some((n) => n.includes('edges run from the main module'))).toBe(true);
    expect(inventory.lockfiles).toEqual([{ path: 'go.mod', kind: 'go.mod', version: '1.23.0', entries: 17 }]);
    expect(inventory.associations).toEqual([{ manifest: 'go.mod', lockfile: 'go.mod', role: 'root' }]);
  });

  it('gives purls per the purl specification', async () => {
    const result = await buildGo(files);
    const purls = components(result).map((o) => eco.purl(o));
    expect(purls).toContain('pkg:golang/github.com/BurntSushi/toml@v1.4.0');
    expect(purls).toContain('pkg:golang/gopkg.in/yaml.v3@v3.0.1');
    expect(purls).toContain('pkg:golang/github.com/docker/cli@v27.3.1+incompatible');
    expect(purls).toContain('pkg:golang/github.com/cespare/xxhash/v2@v2.3.0');
    expect(purls).toContain('pkg:golang/github.com/munnerz/goautoneg@v0.0.0-20191010083416-a7dc8b61c822');
    expect(purls.every((p) => p !== null)).toBe(true);
  });
});

describe('a workspace (go.work using two modules)', () => {
  const files = goFixture('workspace');

  it('makes the used modules roots and merges their requirements into one build list (highest version)', async () => {
    const result = await buildGo(files);
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => [o.name, o.source, o.installPath])).toEqual([
      ['example.com/widget/api', 'workspace', 'api'],
      ['example.com/widget/cmd/widgetd', 'workspace', 'cmd/widgetd'],
    ]);
    expect(components(result).map(coordinate).sort()).toEqual([
      'github.com/inconshreveable/mousetrap@v1.1.0',
      'github.com/spf13/cobra@v1.8.1',
      'github.com/spf13/pflag@v1.0.5',
      'golang.org/x/net@v0.31.0',
      'golang.org/x/text@v0.19.0',
      'google.golang.org/genproto/googleapis/rpc@v0.0.0-20241015192408-796eee8c2d53',
      'google.golang.org/grpc@v1.67.1',
      'google.golang.org/protobuf@v1.35.1',
    ]);
    const net = components(result).find((o) => o.name === 'golang.org/x/net');
    expect(net?.facts['replaces']).toBe('golang.org/x/net@v0.30.0');
    expect(result.inventory.lockfiles).toEqual([{ path: 'go.work', kind: 'go.work', version: '1.23.0', entries: 8 }]);
    expect(result.inventory.associations.map((a) => [a.manifest, a.lockfile, a.role])).toEqual([
      ['api/go.mod', 'go.work', 'workspace'],
      ['cmd/widgetd/go.mod', 'go.work', 'workspace'],
    ]);
  });

  it('draws each member’s edges to the selected versions, and member-to-member edges to the root', async () => {
    const result = await buildGo(files);
    const byRef = new Map(result.inventory.occurrences.map((o) => [o.ref, o]));
    const [api, cmd] = rootsOf(result);
    const edges = (o: typeof api) => (o?.dependencies ?? []).map((e) => `${byRef.get(e.ref)?.name ?? '?'} ${e.range ?? ''}`).sort();
    expect(edges(api)).toEqual([
      'golang.org/x/net v0.30.0',
      'golang.org/x/text v0.19.0',
      'google.golang.org/genproto/googleapis/rpc v0.0.0-20241015192408-796eee8c2d53',
      'google.golang.org/grpc v1.67.1',
      'google.golang.org/protobuf v1.34.2',
    ]);
    expect(edges(cmd)).toEqual([
      'example.com/widget/api v0.3.0',
      'github.com/inconshreveable/mousetrap v1.1.0',
      'github.com/spf13/cobra v1.8.1',
      'github.com/spf13/pflag v1.0.5',
      'golang.org/x/text v0.19.0',
      'google.golang.org/protobuf v1.35.1',
    ]);
  });

  it('takes hashes from every go.sum of the workspace and names what was not uploaded', async () => {
    const result = await buildGo(files);
    const find = (name: string) => components(result).find((o) => o.name === name);
    expect(find('google.golang.org/grpc')?.facts['go_sum']).toMatch(/^h1:/);
    expect(find('github.com/spf13/cobra')?.facts['go_sum']).toMatch(/^h1:/);
    const { notices } = result.inventory;
    expect(notices.some((n) => n.startsWith('go.work uses 1 module directory whose go.mod was not uploaded (./tools)'))).toBe(true);
    expect(notices.some((n) => n.startsWith('go.work.sum: 2 module version(s)'))).toBe(true);
    expect(notices.some((n) => n.startsWith('cmd/widgetd/go.sum: 1 module version(s)'))).toBe(true);
    // protobuf v1.34.2 lost to v1.35.1 in the workspace's one build list; x/net v0.30.0 was
    // replaced, so its go.mod line belongs to the build list.
    expect(notices.some((n) => n.startsWith('api/go.sum: 1 module version(s) appear only in go.sum (1 with a content hash, 0 with'))).toBe(true);
  });
});

describe('an old go.mod (before Go 1.17) without go.sum', () => {
  it('lists its requirements and says the build list is incomplete', async () => {
    const files = goFixture('legacy');
    const result = await buildGo(files);
    expect(components(result).map(coordinate).sort()).toEqual(
      requiresOf(files[0]?.content ?? '')
        .map(([p, v]) => `${p}@${v}`)
        .sort(),
    );
    expect(result.inventory.notices.some((n) => n.startsWith('go.mod declares go 1.14: before Go 1.17'))).toBe(true);
    const redigo = components(result).find((o) => o.name === 'github.com/gomodule/redigo');
    expect(redigo && eco.purl(redigo)).toBe('pkg:golang/github.com/gomodule/redigo@v2.0.0+incompatible');
    expect(redigo?.facts['go_sum']).toBeUndefined();
  });
});

describe('modules of one repository uploaded together without go.work', () => {
  it('links a directory replacement to the uploaded module’s root, and reads that module on its own', async () => {
    const result = await buildGo([
      { path: 'go.mod', content: 'module example.com/app\n\ngo 1.22\n\nrequire (\n\texample.com/app/api v0.0.0\n\tgithub.com/pkg/errors v0.9.1\n)\n\nreplace example.com/app/api => ./api\n' },
      { path: 'api/go.mod', content: 'module example.com/app/api\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.0\n' },
    ]);
    expect(result.problems).toEqual([]);
    const roots = rootsOf(result);
    expect(roots.map((o) => o.ref)).toEqual(['go.mod#.', 'api/go.mod#.']);
    expect(roots[0]?.dependencies.map((e) => e.ref)).toEqual(['api/go.mod#.', 'go.mod#github.com/pkg/errors@v0.9.1']);
    // Each main module keeps its own build list: two lockfiles, one entry each.
    expect(result.inventory.lockfiles.map((l) => [l.path, l.entries])).toEqual([
      ['go.mod', 1],
      ['api/go.mod', 1],
    ]);
    expect(components(result).map(coordinate)).toEqual(['github.com/pkg/errors@v0.9.1', 'github.com/pkg/errors@v0.9.0']);
  });

  it('keeps one root for a directory that two modules replace into', async () => {
    const mod = (name: string) => ({ path: `${name}/go.mod`, content: `module example.com/${name}\n\ngo 1.22\n\nrequire example.com/lib v1.0.0\n\nreplace example.com/lib => ../lib\n` });
    const result = await buildGo([mod('a'), mod('b')]);
    expect(rootsOf(result).map((o) => o.ref)).toEqual(['a/go.mod#.', 'a/go.mod#dir:lib', 'b/go.mod#.']);
    expect(rootsOf(result)[2]?.dependencies.map((e) => e.ref)).toEqual(['a/go.mod#dir:lib']);
  });
});

describe('claiming files', () => {
  it('claims Go’s file names, and renamed Go files by their content', () => {
    const claim = (path: string, content = '') => eco.claim({ path, content });
    expect(claim('go.mod')).toEqual({ kind: 'go-mod', role: 'lockfile', by: 'name' });
    expect(claim('svc/go.sum')).toEqual({ kind: 'go-sum', role: 'auxiliary', by: 'name' });
    expect(claim('go.work')).toEqual({ kind: 'go-work', role: 'auxiliary', by: 'name' });
    expect(claim('go.work.sum')).toEqual({ kind: 'go-sum', role: 'auxiliary', by: 'name' });
    for (const other of ['go.mod.bak', 'package.json', 'Cargo.lock', 'vendor/modules.txt', 'notgo.mod']) expect(claim(other)).toBeNull();
    const [goMod, goSum] = [goFixture('module')[0]?.content ?? '', goFixture('module')[1]?.content ?? ''];
    expect(claim('backend.go.mod', goMod)).toEqual({ kind: 'go-mod', role: 'lockfile', by: 'content' });
    expect(claim('checksums.txt', goSum)).toEqual({ kind: 'go-sum', role: 'auxiliary', by: 'content' });
    expect(claim('notes.txt', 'module thinking\nis hard\n')).toBeNull();
    expect(claim('notes.txt', '\n'.repeat(5000))).toBeNull();
    const files = [
      { path: 'go.mod', content: '', kind: 'go-mod', role: 'lockfile', by: 'name' },
      { path: 'go.sum', content: '', kind: 'go-sum', role: 'auxiliary', by: 'name' },
    ] as const;
    expect(eco.countManifests?.(files)).toBe(1);
  });
});

describe('edges of the upload', () => {
  it('keeps absolute replacement directories absolute, and names a go.sum nothing uses', async () => {
    const result = await buildGo([
      { path: 'svc/go.mod', content: 'module example.com/svc\n\ngo 1.22\n\nrequire (\n\texample.com/a v1.0.0\n\texample.com/b v1.0.0\n)\n\nreplace example.com/a => /srv/src/a\n\nreplace example.com/b => C:\\src\\b\n' },
      { path: 'other/go.sum', content: 'github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\n' },
    ]);
    expect(rootsOf(result).map((o) => o.installPath)).toEqual(['svc', '/srv/src/a', 'C:/src/b']);
    expect(result.inventory.notices).toContain('other/go.sum was not used: no go.mod beside it was read');
  });

  it('counts every go.mod as finished, the unreadable ones too', async () => {
    let done = 0;
    const files = [
      { path: 'a/go.mod', content: 'module a\n' },
      { path: 'b/go.mod', content: 'module\n' },
    ];
    await eco.build(
      files.map((f) => ({ ...f, ...eco.claim(f)! })),
      {
        onManifestDone: () => {
          done++;
        },
      },
    );
    expect(done).toBe(2);
  });
});

describe('conflicting replacements', () => {
  const member = (dir: string, fork: string) => ({
    path: `${dir}/go.mod`,
    content: `module example.com/${dir}\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n\nreplace github.com/pkg/errors => ${fork} v0.9.2\n`,
  });

  it('applies the later one and names the conflict, unless go.work decides', async () => {
    const work = (extra: string) => ({ path: 'go.work', content: `go 1.22\n\nuse (\n\t./a\n\t./b\n)\n${extra}` });
    const conflicting = await buildGo([work(''), member('a', 'github.com/fork1/errors'), member('b', 'github.com/fork2/errors')]);
    expect(components(conflicting).map(coordinate)).toEqual(['github.com/fork2/errors@v0.9.2']);
    expect(conflicting.inventory.notices).toContain('go.work: conflicting replacements for github.com/pkg/errors; the last one was applied');
    const decided = await buildGo([work('\nreplace github.com/pkg/errors => github.com/fork3/errors v0.9.3\n'), member('a', 'github.com/fork1/errors'), member('b', 'github.com/fork2/errors')]);
    expect(components(decided).map(coordinate)).toEqual(['github.com/fork3/errors@v0.9.3']);
    // go.work's rule settles what the members disagree on, as the go command accepts it.
    expect(decided.inventory.notices.some((n) => n.includes('conflicting'))).toBe(false);
  });
});
