import { describe, expect, it } from 'vitest';
import { analyze } from '../../../../src/sbom/analyze.js';
import { cargoEcosystem } from '../../../../src/ecosystems/cargo/analysis.js';
import { buildThrough } from '../../../helpers/ecosystem.js';
import { edgesFrom, inScope } from '../../../helpers/ecosystem-fixtures.js';
import { fixtureSet } from '../fixture-set.js';

/** Cargo rules real workspaces exercise, on a virtual workspace shaped like what `cargo new` and `cargo generate-lockfile` write. */

const FIXTURES = new URL('./fixtures/', import.meta.url);
const upload = () => fixtureSet(FIXTURES, 'virtual-workspace-features').map((f) => ({ ...f, path: `quill/${f.path}` }));

describe('Cargo workspace rules', () => {
  it('features a dependent turns on (features = […] on the dependency, dep/feature in [features]) turn on the optional dependencies they name', async () => {
    const result = await buildThrough(cargoEcosystem(null), upload());
    expect(result.problems).toEqual([]);
    // serde: quill-cli asks quill-core for `serde`; tokio: quill-cli's default `fast-io` is `quill-core/async`.
    expect(inScope(result, 'required')).toEqual(['anyhow@1.0.89', 'memchr@2.7.4', 'serde@1.0.210', 'tokio@1.40.0']);
    // Nothing turns `parallel` on.
    expect(inScope(result, 'optional')).toEqual(['rayon@1.10.0']);
    expect(inScope(result, 'dev')).toEqual(['proptest@1.5.0']);
    expect(edgesFrom(result, 'quill-core')).toEqual(['memchr@2.7.4 (prod)', 'proptest@1.5.0 (dev)', 'rayon@1.10.0 (optional)', 'serde@1.0.210 (prod)', 'tokio@1.40.0 (prod)']);
  });

  it('a virtual workspace’s subject is the workspace (its root folder), with every member a root below it', async () => {
    const result = await buildThrough(cargoEcosystem(null), upload());
    const roots = result.inventory.occurrences.filter((o) => result.inventory.roots.includes(o.ref));
    expect(roots.map((o) => `${o.name} ${o.source} ${o.installPath === '' ? 'top' : o.installPath}`)).toEqual(['quill root top', 'quill-cli workspace quill-cli@0.4.2', 'quill-core workspace quill-core@0.4.2']);
    expect(edgesFrom(result, 'quill')).toEqual(['quill-cli@0.4.2 (prod)', 'quill-core@0.4.2 (prod)']);
    const doc = JSON.parse((await analyze(upload(), 'cyclonedx')).document) as { metadata: { component: { name: string } }; components: { name: string; type: string }[] };
    expect(doc.metadata.component.name).toBe('quill');
    expect(doc.components.filter((c) => c.type === 'application').map((c) => c.name)).toEqual(['quill-cli', 'quill-core']);
  });
});
