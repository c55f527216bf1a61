import { describe, expect, it } from 'vitest';
import { hexEcosystem } from '../../../../src/ecosystems/hex/analysis.js';
import { readMixExs } from '../../../../src/ecosystems/hex/mix-exs.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { edgesFrom, inScope } from '../../../helpers/ecosystem-fixtures.js';
import { fixtureSet } from '../fixture-set.js';

/** mix.exs rules real projects exercise, on a fixture shaped like a library's mix.exs and mix.lock. */

const FIXTURES = new URL('./fixtures/', import.meta.url);

describe('mix.exs rules', () => {
  it('only the deps option declares dependencies: option tuples such as dialyzer’s plt_file are not', async () => {
    const files = fixtureSet(FIXTURES, 'dialyzer-options');
    const project = readMixExs(files.find((f) => f.path === 'mix.exs')?.content ?? '');
    expect(project).toMatchObject({ app: 'ledger', version: '1.4.0' });
    // deps() and optional_deps(), both reached from `deps:`; never `no_warn` (dialyzer) or `Accounts` (docs).
    expect(project.dependencies.map((d) => d.app)).toEqual(['decimal', 'jason', 'telemetry', 'dialyxir', 'ex_doc', 'nimble_csv']);
    const result = await buildThrough(hexEcosystem(null), files);
    expect(result.problems).toEqual([]);
    expect(result.inventory.declarations).toEqual([]);
    expect(edgesFrom(result, 'ledger')).toEqual(['decimal@2.1.1 (prod)', 'dialyxir@1.4.3 (dev)', 'ex_doc@0.34.2 (dev)', 'jason@1.4.4 (prod)', 'nimble_csv@1.2.0 (optional)', 'telemetry@1.3.0 (prod)']);
    expect(inScope(result, 'optional')).toEqual(['nimble_csv@1.2.0']);
    expect(inScope(result, 'dev')).toEqual(['dialyxir@1.4.3', 'earmark_parser@1.4.41', 'erlex@0.2.7', 'ex_doc@0.34.2', 'makeup_elixir@1.0.0']);
  });
});
