import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as CDX from '@cyclonedx/cyclonedx-library';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureHttp } from '../../../helpers/registry-fixture.js';
import { analyze } from '../../../../src/sbom/analyze.js';
import { hexEcosystem } from '../../../../src/ecosystems/hex/analysis.js';
import { readMixExs } from '../../../../src/ecosystems/hex/mix-exs.js';
import { parseTerm } from '../../../../src/ecosystems/hex/terms.js';
import { TransientAnalysisError } from '../../../../src/model/types.js';
import { buildThrough, components, rootsOf } from '../../../helpers/ecosystem.js';
import { SMALL_NPM } from '../../../helpers/fixtures.js';
import { officialSpdxSchema } from '../../../helpers/spdx-schema.js';

/** Elixir and Erlang: mix.lock (every entry shape a real one has), mix.exs, rebar.lock and the Hex API. */

const SHA = (c: string): string => c.repeat(64);
const LOCK = `%{
  "bandit": {:hex, :bandit, "1.5.7", "${SHA('a')}", [:mix], [{:hpax, "~> 1.0", [hex: :hpax, repo: "hexpm", optional: false]}, {:plug, "~> 1.14", [hex: :plug, repo: "hexpm", optional: false]}, {:telemetry, "~> 0.4 or ~> 1.0", [hex: :telemetry, repo: "hexpm", optional: false]}], "hexpm", "${SHA('b')}"},
  "eini": {:hex, :eini_beam, "2.2.4", "${SHA('c')}", [:rebar3], [], "hexpm", "${SHA('d')}"},
  "elixirkit": {:git, "https://github.com/livebook-dev/elixirkit.git", "6c1b3f25e7efe12305dfe62c56ed07ad55bb9cd3", [branch: "main"]},
  "ex_doc": {:hex, :ex_doc, "0.34.2", "${SHA('e')}", [:mix], [{:earmark_parser, "~> 1.4.39", [hex: :earmark_parser, repo: "hexpm", optional: false]}, {:makeup_elixir, "~> 0.14 or ~> 1.0", [hex: :makeup_elixir, repo: "hexpm", optional: true]}], "hexpm", "${SHA('f')}"},
  "earmark_parser": {:hex, :earmark_parser, "1.4.41", "${SHA('1')}", [:mix], [], "hexpm", "${SHA('2')}"},
  "makeup_elixir": {:hex, :makeup_elixir, "0.16.2", "${SHA('3')}", [:mix], [], "hexpm", "${SHA('4')}"},
  "hpax": {:hex, :hpax, "1.0.0", "${SHA('5')}", [:mix], [], "hexpm", "${SHA('6')}"},
  "plug": {:hex, :plug, "1.16.1", "${SHA('7')}", [:mix], [{:mime, "~> 1.0 or ~> 2.0", [hex: :mime, repo: "hexpm", optional: false]}, {:telemetry, "~> 0.4.3 or ~> 1.0", [hex: :telemetry, repo: "hexpm", optional: false]}], "hexpm", "${SHA('8')}"},
  "mime": {:hex, :mime, "2.0.6", "${SHA('9')}", [:mix], [], "hexpm"},
  "telemetry": {:hex, :telemetry, "1.3.0", "${SHA('0')}", [:rebar3], [], "hexpm", "${SHA('a')}"},
  "secret": {:hex, :secret, "0.1.0", "${SHA('b')}", [:mix], [], "hexpm:acme", "${SHA('c')}"},
  "old": {:hex, :old, "0.9.0", "${SHA('d')}"},
}
`;

const MIX_EXS = `defmodule Demo.MixProject do
  use Mix.Project

  def project do
    [app: :demo, version: "0.3.0", elixir: "~> 1.15", deps: deps()]
  end

  defp deps do
    [
      {:bandit, "~> 1.5"},
      {:eini, "~> 2.2", hex: :eini_beam},
      # Docs
      {:ex_doc, "~> 0.34", only: :dev, runtime: false},
      {:secret, "~> 0.1", organization: "acme"},
      {:sibling, path: "../sibling"},
      {:missing, "~> 1.0", only: [:dev, :test]},
      {:elixirkit, github: "livebook-dev/elixirkit"}
    ]
  end
end
`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function hexApi(mode: 'ok' | '500' | 'hang' | 'malformed') {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (mode === 'hang') return;
    if (mode === '500') return void res.writeHead(500).end('down');
    if (mode === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"meta": ');
    if (path !== '/api/packages/plug') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404,"message":"Page not found"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ name: 'plug', html_url: 'https://hex.pm/packages/plug', meta: { licenses: ['Apache-2.0'], description: 'Compose web applications with functions', links: { GitHub: 'https://github.com/elixir-plug/plug' } }, retirements: { '1.16.0': { reason: 'security', message: 'CVE fix in 1.16.1' } } }),
    );
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const http = fixtureHttp(mode === 'hang');
  open.push(http, { close: async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); } });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, http };
}

describe('Elixir', () => {
  it('gives one component per mix.lock entry, hex and git alike, with exact edges and scopes from mix.exs', async () => {
    const eco = hexEcosystem(null);
    const result = await buildThrough(eco, [
      { path: 'mix.exs', content: MIX_EXS },
      { path: 'mix.lock', content: LOCK },
    ]);
    expect(result.problems).toEqual([]);
    expect(rootsOf(result).map((o) => `${o.name}@${o.version ?? ''}`)).toEqual(['demo@0.3.0']);
    const comps = components(result);
    // 12 entries, one each; scopes by hand: ex_doc and what only it brings are dev, makeup_elixir
    // only an optional dependency of a dev one (dev), the rest required; `old` nobody reaches.
    expect(comps.map((o) => `${o.name}@${o.version ?? ''} ${!o.scopeKnown ? '?' : o.dev ? 'dev' : o.optional ? 'optional' : 'required'}`).sort()).toEqual([
      'bandit@1.5.7 required',
      'earmark_parser@1.4.41 dev',
      'eini_beam@2.2.4 required',
      'elixirkit@6c1b3f25e7efe12305dfe62c56ed07ad55bb9cd3 required',
      'ex_doc@0.34.2 dev',
      'hpax@1.0.0 required',
      'makeup_elixir@0.16.2 dev',
      'mime@2.0.6 required',
      'old@0.9.0 ?',
      'plug@1.16.1 required',
      'secret@0.1.0 required',
      'telemetry@1.3.0 required',
    ]);
    const by = new Map(comps.map((o) => [o.name, o]));
    expect(eco.purl(by.get('eini_beam') as never)).toBe('pkg:hex/eini_beam@2.2.4');
    expect(eco.purl(by.get('secret') as never)).toBe('pkg:hex/acme/secret@0.1.0');
    expect(eco.purl(by.get('elixirkit') as never)).toBe('pkg:hex/elixirkit@6c1b3f25e7efe12305dfe62c56ed07ad55bb9cd3?vcs_url=git%2Bhttps%3A%2F%2Fgithub.com%2Flivebook-dev%2Felixirkit.git%406c1b3f25e7efe12305dfe62c56ed07ad55bb9cd3');
    expect(by.get('bandit')?.integrity).toBe(`sha256-${Buffer.from(SHA('b'), 'hex').toString('base64')}`);
    expect(by.get('bandit')?.dependencies.map((e) => `${e.ref.split('#')[1] ?? ''} ${e.kind} ${e.range ?? ''}`)).toEqual(['hpax prod ~> 1.0', 'plug prod ~> 1.14', 'telemetry prod ~> 0.4 or ~> 1.0']);
    expect(by.get('ex_doc')?.dependencies.map((e) => `${e.ref.split('#')[1] ?? ''} ${e.kind}`)).toEqual(['earmark_parser prod', 'makeup_elixir optional']);
    expect(result.inventory.declarations).toEqual([{ manifest: 'mix.exs', name: 'missing', range: '~> 1.0', kind: 'deps (only dev/test)', ecosystem: 'hex' }]);
    expect(result.inventory.lockfiles).toEqual([{ path: 'mix.lock', kind: 'mix.lock', version: null, entries: 12 }]);
  });

  it('reads rebar.lock entries and hashes', async () => {
    const rebar = `{"1.2.0",
[{<<"cowboy">>,{pkg,<<"cowboy">>,<<"2.12.0">>},0},
 {<<"cowlib">>,{pkg,<<"cowlib">>,<<"2.13.0">>},1},
 {<<"meck">>,{git,"https://github.com/eproxus/meck.git",{ref,"1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"}},0}]}.
[
{pkg_hash,[
 {<<"cowboy">>, <<"F276D521A1FF88B2B9B4C54D0E753DA6C66DD7BE6C9FCA3D9418B561828A3731">>},
 {<<"cowlib">>, <<"DB8F7505D8332D98EF50A3EF34B34C1AFDDEC7506E4EE4DD4A3A266285D282CA">>}]},
{pkg_hash_ext,[
 {<<"cowboy">>, <<"8A7ABE6D183372CEB21CAA2709BEC928AB2B72E18A3911AA1771639BEF82651E">>},
 {<<"cowlib">>, <<"E1E1284DC3FC030A64B1AD0D8382AE7E99DA46C3246B815318A4B848873800A4">>}]}
].
`;
    const result = await buildThrough(hexEcosystem(null), [{ path: 'rebar.lock', content: rebar }]);
    expect(components(result).map((o) => `${o.name}@${o.version ?? ''} ${o.source}`)).toEqual(['cowboy@2.12.0 registry', 'cowlib@2.13.0 registry', 'meck@1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d git']);
    expect(components(result)[0]?.integrity).toBe(`sha256-${Buffer.from('8A7ABE6D183372CEB21CAA2709BEC928AB2B72E18A3911AA1771639BEF82651E', 'hex').toString('base64')}`);
  });

  it('reads terms as data only: quoted atoms, keyword keys, comments; anything else is a syntax error with its place', async () => {
    expect(parseTerm('x', '%{"a": {:hex, :"odd name", "1.0", [only: [:dev], x: nil]}, "b" => true} # done')).toEqual({
      map: [
        [{ atom: 'a' }, { tuple: [{ atom: 'hex' }, { atom: 'odd name' }, '1.0', [{ tuple: [{ atom: 'only' }, [{ atom: 'dev' }]] }, { tuple: [{ atom: 'x' }, null] }]] }],
        ['b', true],
      ],
    });
    const evil = await buildThrough(hexEcosystem(null), [{ path: 'mix.lock', content: '%{"a": System.cmd("rm", ["-rf", "/"])}' }]);
    expect(evil.problems).toMatchObject([{ path: 'mix.lock', reason: 'syntax', line: 1 }]);
    const deep = await buildThrough(hexEcosystem(null), [{ path: 'mix.lock', content: `${'['.repeat(200)}${']'.repeat(200)}` }]);
    expect(deep.problems).toMatchObject([{ path: 'mix.lock', reason: 'syntax' }]);
  });

  it('lists mix.exs dependencies as declarations without a lock', async () => {
    expect(readMixExs(MIX_EXS).dependencies.map((d) => `${d.app} ${d.devOnly ? 'dev' : ''}${d.local ? 'local' : ''}`.trim())).toEqual(['bandit', 'eini', 'ex_doc dev', 'secret', 'sibling local', 'missing dev', 'elixirkit']);
    const alone = await buildThrough(hexEcosystem(null), [{ path: 'mix.exs', content: MIX_EXS }]);
    expect(components(alone)).toEqual([]);
    expect(alone.inventory.declarations.map((d) => d.name)).toEqual(['bandit', 'eini', 'ex_doc', 'secret', 'missing', 'elixirkit']);
  });

  it('reads licenses from the Hex API; a Hex in trouble is the registry’s failure', async () => {
    const client = hexEcosystem(await hexApi('ok')).metadata;
    expect(await client?.fetch('plug', '1.16.0')).toMatchObject({ license: 'Apache-2.0', repository: 'https://github.com/elixir-plug/plug', homepage: 'https://hex.pm/packages/plug', deprecated: 'CVE fix in 1.16.1' });
    expect(await client?.fetch('nope', '1.0.0')).toBeNull();
    await expect(hexEcosystem(await hexApi('500')).metadata?.fetch('plug', '1.16.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(hexEcosystem(await hexApi('hang')).metadata?.fetch('plug', '1.16.1')).rejects.toBeInstanceOf(TransientAnalysisError);
    await expect(hexEcosystem(await hexApi('malformed')).metadata?.fetch('plug', '1.16.1')).rejects.toThrow();
  });

  it('renders valid documents, and one document with npm beside it (recorded)', async () => {
    // Every declared dependency is in the lock here, so the evidence is a recorded one.
    const files = [
      { path: 'mix.exs', content: MIX_EXS.replace(/^.*:missing.*\n/m, '') },
      { path: 'mix.lock', content: LOCK },
      ...SMALL_NPM().map((f) => ({ ...f, path: `assets/${f.path}` })),
    ];
    const cdx = await analyze(files, 'cyclonedx');
    expect(await new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot7).validate(cdx.document)).toBeNull();
    const doc = JSON.parse(cdx.document) as { components: { purl?: string }[]; properties: { name: string; value: string }[] };
    expect(doc.components.some((c) => c.purl?.startsWith('pkg:hex/plug@') === true)).toBe(true);
    expect(doc.components.some((c) => c.purl?.startsWith('pkg:npm/') === true)).toBe(true);
    expect(doc.properties.find((p) => p.name === 'service:completeness')?.value).toBe('recorded_lockfile_inventory');
    expect(officialSpdxSchema(JSON.parse((await analyze(files, 'spdx')).document))).toBe(true);
    expect((await analyze(files, 'text')).document).toMatch(/^Elixir +plug +1\.16\.1/m);
  });
});
