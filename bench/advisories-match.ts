/**
 * Matching a 10,000-component inventory against the real Go and PyPI advisories, warm (target:
 * under 1 s): through the service's Postgres mirror (the advisories imported into a bench
 * database first) and through the CLI's in-memory reading of the zips. The inventory mixes
 * packages the advisories name (at versions they list or bound, so many match) with packages
 * they do not, and a go.mod root whose Go version meets the standard library's advisories.
 * Run: npx tsx bench/advisories-match.ts
 */
import { join } from 'node:path';
import { openFileLookup } from '../src/advisories/file-lookup.js';
import { importAdvisoryPaths } from '../src/advisories/import.js';
import { matchVulnerabilities, type MatchedOccurrence } from '../src/advisories/match/index.js';
import { pgAdvisoryLookup } from '../src/advisories/pg-lookup.js';
import { AdvisoryStore } from '../src/advisories/store.js';
import type { AdvisoryLookup, OsvAdvisory } from '../src/advisories/types.js';
import { connectDatabase } from '../src/db/client.js';
import { readDocuments, SHARED_ADVISORIES } from '../test/advisories/match-lookup.js';
import { benchDatabase, ms } from './helpers.js';

const COMPONENTS = 10_000;
const ZIPS = [join(SHARED_ADVISORIES, 'Go', 'all.zip'), join(SHARED_ADVISORIES, 'PyPI', 'all.zip')];
const PURL_TYPE: Readonly<Record<string, string>> = { Go: 'golang', PyPI: 'pypi' };

/** Up to `advised` occurrences at versions the advisories name, the rest named by no advisory. */
function inventoryOf(documents: readonly OsvAdvisory[], advised: number): MatchedOccurrence[] {
  const seen = new Set<string>();
  const out: MatchedOccurrence[] = [];
  const add = (ecosystem: string, name: string, version: string): void => {
    const key = `${ecosystem}\0${name}\0${version}`;
    if (seen.has(key) || out.length >= advised) return;
    seen.add(key);
    out.push({ ref: `c${out.length}`, ecosystem, name, version, source: 'registry', resolved: null, facts: {} });
  };
  for (const doc of documents) {
    for (const a of doc.affected ?? []) {
      const type = a.package === undefined ? undefined : PURL_TYPE[a.package.ecosystem];
      if (type === undefined || a.package === undefined || a.package.name === 'stdlib' || a.package.name === 'toolchain') continue;
      const go = type === 'golang';
      for (const v of a.versions ?? []) add(type, a.package.name, v);
      for (const r of a.ranges ?? []) for (const e of r.events) for (const v of [e.introduced, e.fixed, e.last_affected]) if (v !== undefined && v !== '0') add(type, a.package.name, go ? `v${v}` : v);
    }
  }
  for (let i = 0; out.length < COMPONENTS - 1; i++) {
    out.push({ ref: `c${out.length}`, ecosystem: i % 2 === 0 ? 'pypi' : 'golang', name: i % 2 === 0 ? `unadvised-${i}` : `example.com/unadvised/m${i}`, version: i % 2 === 0 ? '1.0.0' : 'v1.0.0', source: 'registry', resolved: null, facts: {} });
  }
  out.push({ ref: 'root', ecosystem: 'golang', name: 'example.com/app', version: null, source: 'root', resolved: null, facts: { go: '1.21.0' } });
  return out;
}

async function measure(label: string, inventory: readonly MatchedOccurrence[], lookup: AdvisoryLookup): Promise<number> {
  const cold = performance.now();
  const first = await matchVulnerabilities(inventory, lookup);
  const coldMs = performance.now() - cold;
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await matchVulnerabilities(inventory, lookup);
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  // The lookup alone (what the store answers), to tell its share from the matcher's.
  const names = new Map<string, Set<string>>();
  for (const o of inventory) {
    const ecosystem = o.ecosystem === 'golang' ? 'Go' : 'PyPI';
    names.set(ecosystem, (names.get(ecosystem) ?? new Set()).add(o.name));
  }
  const lookupStart = performance.now();
  await Promise.all([...names].map(([ecosystem, set]) => lookup.byPackages(ecosystem, [...set])));
  const lookupMs = performance.now() - lookupStart;
  const cpuStart = process.cpuUsage();
  await matchVulnerabilities(inventory, lookup);
  const cpu = process.cpuUsage(cpuStart);
  const affected = new Set(first.matches.flatMap((m) => m.affects.map((a) => a.ref))).size;
  const median = runs[2] ?? Number.NaN;
  console.log(
    `${label}: ${inventory.length} components, ${first.matches.length} vulnerabilities on ${affected} components; cold ${ms(coldMs)}, warm median ${ms(median)} (min ${ms(runs[0] ?? Number.NaN)}, max ${ms(runs[4] ?? Number.NaN)}); the lookup alone ${ms(lookupMs)}; CPU of this process per warm run ${ms((cpu.user + cpu.system) / 1000)}`,
  );
  return median;
}

const documents = await readDocuments(ZIPS);
const inventory = inventoryOf(documents, 6_000);
console.log(`inventory: ${inventory.length} components, ${inventory.filter((o) => !o.name.includes('unadvised')).length} named by an advisory`);

const url = await benchDatabase('pkgscope_bench_advisories_match');
const database = connectDatabase(url, { max: 4 });
let worst = 0;
try {
  const started = performance.now();
  await importAdvisoryPaths(new AdvisoryStore(database.db), ZIPS);
  console.log(`imported Go and PyPI into Postgres in ${ms(performance.now() - started)}`);
  worst = Math.max(worst, await measure('Postgres mirror', inventory, pgAdvisoryLookup(database.db)));
} finally {
  await database.close();
}
const files = await openFileLookup(ZIPS);
worst = Math.max(worst, await measure('OSV zips in memory (CLI)', inventory, files));
console.log(worst < 1000 ? `PASS: warm match under 1 s (${ms(worst)})` : `FAIL: warm match took ${ms(worst)} (target 1 s)`);
process.exitCode = worst < 1000 ? 0 : 1;
