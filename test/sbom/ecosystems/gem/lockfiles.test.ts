import { describe, expect, it } from 'vitest';
import { gemEcosystem } from '../../../../src/ecosystems/gem/analysis.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { edgesFrom, fixtureUpload, inScope, label } from '../../../helpers/ecosystem-fixtures.js';
import { specLines } from './helpers.js';

const ruby = gemEcosystem(null);
const railsApp = (): ReturnType<typeof fixtureUpload> => fixtureUpload('gem', 'rails-app');

describe('Gemfile.lock', () => {
  it('one component per spec of every GIT, PATH, PLUGIN SOURCE and GEM section; platform builds apart', async () => {
    const files = railsApp();
    const result = await buildThrough(ruby, files);
    expect(result.problems).toEqual([]);
    const lock = files.find((f) => f.path === 'Gemfile.lock')?.content ?? '';
    expect(components(result)).toHaveLength(specLines(lock));
    expect(components(result)).toHaveLength(49);
    expect(components(result).filter((o) => o.name === 'nokogiri').map(label).sort()).toEqual([
      'nokogiri@1.16.2',
      'nokogiri@1.16.2-arm64-darwin',
      'nokogiri@1.16.2-x86_64-linux',
    ]);
    expect(result.inventory.lockfiles).toEqual([{ path: 'Gemfile.lock', kind: 'Gemfile.lock', version: '2.5.6', entries: 49 }]);
    expect(result.inventory.associations).toEqual([{ manifest: 'Gemfile', lockfile: 'Gemfile.lock', role: 'root' }]);
  });

  it('the Gemfile’s groups (blocks, group: options, an evaluated file) decide what is dev; the rest follows the graph', async () => {
    const result = await buildThrough(ruby, railsApp());
    expect(inScope(result, 'dev')).toEqual([
      'bindex@0.8.1', 'capybara@3.40.0', 'debug@1.9.1', 'docile@1.4.0', 'parallel@1.24.0', 'rainbow@3.1.1', 'rspec-core@3.13.0',
      'rspec-rails@6.1.1', 'rspec-support@3.13.1', 'rubocop-acme@0.3.0', 'rubocop@1.60.2', 'simplecov-html@0.12.3', 'simplecov@0.22.0',
      'web-console@4.2.1', 'xpath@3.2.0',
    ]);
    expect(inScope(result, 'required')).toHaveLength(34);
    // nokogiri is also a test gem's dependency, but rails reaches it: it ships, every platform build.
    expect(inScope(result, 'required')).toEqual(expect.arrayContaining(['nokogiri@1.16.2-x86_64-linux', 'racc@1.7.3', 'sidekiq@7.2.2', 'acme-sdk@2.0.1']));
  });

  it('edges resolve to exact occurrences: every build for a generic depender, the same platform’s for a platform build', async () => {
    const result = await buildThrough(ruby, railsApp());
    expect(edgesFrom(result, 'actionpack')).toEqual([
      'activesupport@7.1.3 (prod)',
      'nokogiri@1.16.2 (prod)',
      'nokogiri@1.16.2-arm64-darwin (prod)',
      'nokogiri@1.16.2-x86_64-linux (prod)',
      'rack@3.0.9.1 (prod)',
    ]);
    expect(edgesFrom(result, 'nokogiri', 'x86_64-linux')).toEqual(['racc@1.7.3 (prod)']);
    expect(edgesFrom(result, 'nokogiri')).toEqual(['mini_portile2@2.8.5 (prod)', 'racc@1.7.3 (prod)']);
    const project = rootsOf(result)[0];
    expect([project?.name, project?.facts]).toEqual(['project', { ruby_version: '3.3.0p0', platforms: 'arm64-darwin, ruby, x86_64-linux' }]);
    const fromProject = edgesFrom(result, 'project');
    expect(fromProject).toHaveLength(16);
    expect(fromProject).toEqual(expect.arrayContaining(['capybara@3.40.0 (dev)', 'simplecov@0.22.0 (dev)', 'sidekiq-pro@7.2.0 (prod)', 'billing@0.1.0 (prod)']));
    // Bundler never locks itself: rails' `bundler (>= 1.15.0)` is no edge and no notice.
    expect(edgesFrom(result, 'rails')).toEqual(['actionpack@7.1.3 (prod)', 'activesupport@7.1.3 (prod)', 'railties@7.1.3 (prod)']);
    expect(result.inventory.notices).toEqual([]);
    const rails = result.inventory.occurrences.find((o) => o.name === 'rails');
    expect(rails?.dependencies.find((d) => d.ref.includes('railties'))?.range).toBe('= 7.1.3');
  });

  it('sources, purls and CHECKSUMS hashes (CHECKSUMS never adds an entry)', async () => {
    const result = await buildThrough(ruby, railsApp());
    const by = (name: string, platform?: string) => result.inventory.occurrences.find((o) => o.name === name && o.facts['platform'] === platform);
    const purl = (name: string, platform?: string) => {
      const o = by(name, platform);
      return o === undefined ? undefined : ruby.purl(o);
    };
    expect(purl('nokogiri', 'x86_64-linux')).toBe('pkg:gem/nokogiri@1.16.2?platform=x86_64-linux');
    expect(purl('nokogiri')).toBe('pkg:gem/nokogiri@1.16.2');
    expect(purl('rubocop-acme')).toBe('pkg:gem/rubocop-acme@0.3.0?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Facme%2Frubocop-acme.git%405b1d0c6e4d6f8a0b7e2c9f3a1d4e6b8c0a2f4e6d');
    expect(purl('sidekiq-pro')).toBe('pkg:gem/sidekiq-pro@7.2.0?repository_url=https%3A%2F%2Fgems.contribsys.com%2F');
    expect(purl('billing')).toBeNull();
    expect([by('rubocop-acme')?.source, by('rubocop-acme')?.facts]).toEqual(['git', { git_branch: 'main', git_glob: '*.gemspec', git_submodules: 'true' }]);
    expect([by('billing')?.source, by('acme-sdk')?.source, by('sidekiq-pro')?.source, by('rack')?.source]).toEqual(['file', 'tarball', 'tarball', 'registry']);
    expect(by('rack')?.resolved).toBe('https://rubygems.org/gems/rack-3.0.9.1.gem');
    const hex = '3d4c8de3a9c7d2d6d0c1b3a5a8b3f2e4c6d8e0f2a4b6c8d0e2f4a6b8c0d2e4f6';
    expect(by('nokogiri', 'x86_64-linux')?.integrity).toBe(`sha256-${Buffer.from(hex, 'hex').toString('base64')}`);
    expect(by('nokogiri', 'arm64-darwin')?.integrity).not.toBe(by('nokogiri', 'x86_64-linux')?.integrity);
    expect(by('puma')?.integrity).toBeNull();
    const extra = (await buildThrough(ruby, [{ path: 'Gemfile.lock', content: 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rake (13.1.0)\n\nCHECKSUMS\n  rake (13.1.0) sha256=' + 'a'.repeat(64) + '\n  ghost (1.0.0) sha256=' + 'b'.repeat(64) + '\n' }]));
    expect(components(extra).map(label)).toEqual(['rake@13.1.0']);
  });

  it('gems.locked with gems.rb and a gemspec: the PATH `.` gem is the root, its development dependencies dev', async () => {
    const result = await buildThrough(ruby, fixtureUpload('gem', 'gem-project'));
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => [o.name, o.version, o.license])).toEqual([['widget', '2.4.0', '(MIT OR Apache-2.0)']]);
    expect(inScope(result, 'required')).toEqual(['faraday-net_http@3.1.0', 'faraday@2.9.0', 'json@2.7.1', 'json@2.7.1-java', 'net-http@0.4.1', 'uri@0.13.0']);
    expect(inScope(result, 'dev')).toEqual(['minitest@5.22.2', 'parallel@1.24.0', 'rainbow@3.1.1', 'rake@13.1.0', 'rubocop@1.62.1']);
    expect(result.inventory.lockfiles[0]).toMatchObject({ path: 'gems.locked', kind: 'gems.locked', entries: 11 });
    expect(result.inventory.associations.map((a) => a.manifest).sort()).toEqual(['gems.rb', 'widget.gemspec']);
  });

  it('a lockfile alone records no scope (roots excepted) but keeps every edge', async () => {
    const result = await buildThrough(ruby, fixtureUpload('gem', 'gem-project', ['gems.locked']));
    expect(inScope(result, 'unknown')).toHaveLength(11);
    expect(rootsOf(result).every((o) => o.scopeKnown)).toBe(true);
    expect(edgesFrom(result, 'widget')).toEqual(['faraday@2.9.0 (prod)', 'json@2.7.1 (prod)', 'json@2.7.1-java (prod)', 'minitest@5.22.2 (prod)', 'rake@13.1.0 (prod)', 'rubocop@1.62.1 (prod)']);
  });
});

describe('Gemfile and gemspec without a lockfile', () => {
  it('requirements are declarations in their own words; the gemspec names the root', async () => {
    const result = await buildThrough(ruby, fixtureUpload('gem', 'gem-project', ['gems.rb', 'widget.gemspec']));
    expect(components(result)).toEqual([]);
    expect(rootsOf(result).map((o) => `${o.name}@${o.version ?? ''}`)).toEqual(['widget@2.4.0']);
    expect(result.inventory.declarations.map((d) => `${d.manifest}: ${d.name} ${d.range} (${d.kind})`)).toEqual([
      'gems.rb: rubocop ~> 1.62 (development)',
      'widget.gemspec: faraday >= 1.10, < 3 (runtime)',
      'widget.gemspec: json ~> 2.7 (runtime)',
      'widget.gemspec: minitest ~> 5.22 (development)',
      'widget.gemspec: rake >= 12, < 14 (development)',
    ]);
    expect(result.inventory.resolutions.map((r) => r.outcome)).toEqual(['resolution_failed', 'resolution_failed']);
  });

  it('reads every Gemfile form as text: groups, options, hash rockets, continued calls, modifiers, sources, never running it', async () => {
    const gemfile = [
      'source "https://rubygems.org"',
      'gem "rack", "3.0.9"                       # exact: the file states it',
      "gem 'rake', '>= 12', '< 14'",
      'gem "pry", :group => :development',
      'gem "rspec", groups: [:test, :development]',
      'gem "sqlite3", "~> 1.7" if ENV["DB"] == "sqlite"',
      'gem "local", path: "../local"',
      'gem "forked", git: "https://example.com/forked.git", tag: "v1"',
      'group :production, optional: true do',
      '  gem "lograge",',
      '      "~> 0.14"',
      'end',
      'platforms :jruby do',
      '  gem "jdbc"',
      'end',
      'system("rm -rf /") # never run',
    ].join('\n');
    const result = await buildThrough(ruby, [{ path: 'app/Gemfile', content: gemfile }]);
    expect(rootsOf(result).map((o) => o.name)).toEqual(['app']);
    expect(components(result).map((o) => [label(o), o.dev])).toEqual([['rack@3.0.9', false]]);
    expect(result.inventory.declarations.map((d) => `${d.name}|${d.range}|${d.kind}`)).toEqual([
      'rake|>= 12, < 14|default',
      'pry||development',
      'rspec||test,development',
      'sqlite3|~> 1.7|default',
      'local||default',
      'forked||default',
      'lograge|~> 0.14|production',
      'jdbc||default',
    ]);
  });
});

describe('malformed Bundler files', () => {
  it('an unclosed quote swallows a bounded number of lines, never the rest of the Gemfile', async () => {
    const lines = ['gem "broken, "1.0"', ...Array.from({ length: 200 }, (_, i) => `# filler ${i}`), 'gem "rack", "~> 3.0"'];
    const result = await buildThrough(ruby, [{ path: 'Gemfile', content: lines.join('\n') }]);
    expect(result.inventory.declarations.map((d) => d.name)).toEqual(['rack']);
  });

  it('a Gemfile.lock line over the documented bound fails the analysis with the limit', async () => {
    const lock = `GEM\n  remote: https://rubygems.org/\n  specs:\n    ${'a'.repeat(70_000)} (1.0)\n`;
    await expect(buildThrough(ruby, [{ path: 'Gemfile.lock', content: lock }])).rejects.toMatchObject({ problems: [{ path: 'Gemfile.lock', reason: 'line_too_long', line: 4 }] });
  });

  it('a broken Gemfile.lock is a problem naming the file and line, never a throw', async () => {
    const lock = 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rack (3.0.9)\n    not a spec line (\n';
    const result = await buildThrough(ruby, [{ path: 'svc/Gemfile.lock', content: lock }]);
    expect(result.problems).toEqual([expect.objectContaining({ path: 'svc/Gemfile.lock', reason: 'malformed', line: 5 })]);
    expect(result.inventory.occurrences).toEqual([]);
    expect(result.inventory.notices[0]).toContain('svc/Gemfile.lock was skipped');
  });

  it('merge conflict markers and text that is no lockfile are problems too', async () => {
    const conflict = 'GEM\n  remote: https://rubygems.org/\n  specs:\n<<<<<<< HEAD\n    rack (3.0.9)\n=======\n    rack (3.0.8)\n>>>>>>> main\n';
    const a = await buildThrough(ruby, [{ path: 'Gemfile.lock', content: conflict }]);
    expect(a.problems).toEqual([expect.objectContaining({ path: 'Gemfile.lock', line: 4, message: 'unresolved merge conflict marker' })]);
    const b = await buildThrough(ruby, [{ path: 'gems.locked', content: 'hello world\n' }]);
    expect(b.problems).toEqual([expect.objectContaining({ path: 'gems.locked', reason: 'malformed', line: 1 })]);
    // A section a later Bundler may add is skipped, as Bundler skips it.
    const c = await buildThrough(ruby, [{ path: 'Gemfile.lock', content: 'GEM\n  remote: https://rubygems.org/\n  specs:\n    rack (3.0.9)\n\nFUTURE SECTION\n  anything: here\n    at any depth\n' }]);
    expect([c.problems, components(c).map(label)]).toEqual([[], ['rack@3.0.9']]);
  });
});

describe('gemspecs as gem build writes them', () => {
  it('reads %q<> literals, .freeze and array requirements', async () => {
    const gemspec = [
      '# -*- encoding: utf-8 -*-',
      'Gem::Specification.new do |s|',
      '  s.name = "legacy".freeze',
      '  s.version = "0.9.1"',
      '  s.licenses = ["BSD-2-Clause".freeze]',
      '  s.add_runtime_dependency(%q<rack>.freeze, [">= 2.0".freeze, "< 4".freeze])',
      '  s.add_development_dependency(%q<rspec>.freeze, ["~> 3.12".freeze])',
      'end',
    ].join('\n');
    const result = await buildThrough(ruby, [{ path: 'legacy.gemspec', content: gemspec }]);
    expect(rootsOf(result).map((o) => [o.name, o.version, o.license])).toEqual([['legacy', '0.9.1', 'BSD-2-Clause']]);
    expect(result.inventory.declarations.map((d) => `${d.name} ${d.range} (${d.kind})`)).toEqual(['rack >= 2.0, < 4 (runtime)', 'rspec ~> 3.12 (development)']);
  });
});

describe('Appraisal-style Gemfiles', () => {
  it('a gemfiles/*.gemfile with its own lock finds the gemspec its `gemspec path:` names; a missing evaluated file is a notice', async () => {
    const files = [
      { path: 'widget.gemspec', content: 'Gem::Specification.new do |s|\n  s.name = "widget"\n  s.version = "1.0.0"\n  s.add_development_dependency "rake"\nend\n' },
      { path: 'gemfiles/rails_7.gemfile', content: 'source "https://rubygems.org"\n\ngem "rails", "~> 7.1"\n\ngemspec path: "../"\neval_gemfile "../shared.gemfile"\n' },
      {
        path: 'gemfiles/rails_7.gemfile.lock',
        content: 'PATH\n  remote: ..\n  specs:\n    widget (1.0.0)\n\nGEM\n  remote: https://rubygems.org/\n  specs:\n    rails (7.1.3)\n    rake (13.1.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rails (~> 7.1)\n  rake\n  widget!\n\nBUNDLED WITH\n   2.5.6\n',
      },
    ];
    const result = await buildThrough(ruby, files);
    expect(result.problems).toEqual([]);
    // The PATH remote `..` is the folder of the widget gemspec: the project itself, not a dependency.
    expect(rootsOf(result).map((o) => [o.name, o.ref])).toEqual([['widget', 'gemfiles/rails_7.gemfile.lock#widget (1.0.0)']]);
    expect(inScope(result, 'dev')).toEqual(['rake@13.1.0']);
    expect(inScope(result, 'required')).toEqual(['rails@7.1.3']);
    expect(result.inventory.notices).toEqual(['gemfiles/rails_7.gemfile evaluates ../shared.gemfile, which was not uploaded: its gems are not known']);
    expect(result.inventory.associations.map((a) => a.manifest).sort()).toEqual(['gemfiles/rails_7.gemfile', 'widget.gemspec']);
  });
});
