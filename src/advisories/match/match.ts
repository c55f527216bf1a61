/**
 * The match of an inventory against advisories: each occurrence is looked up by its OSV
 * ecosystem and normalised name, and every advisory naming it is evaluated by OSV's rules
 * (./ranges.ts, ./git.ts). What is matched:
 * - registry packages by their version;
 * - git dependencies by their commit (GIT ranges only, see ./git.ts);
 * - a Go module root's `go`/`toolchain` directive (the `toolchain` line when there is one, since it
 *   names the toolchain that builds, else the `go` line) against the Go advisories of the
 *   standard library and the toolchain (`stdlib`, `toolchain`): the root occurrence is affected,
 *   at that Go version.
 * Files, links, workspace members and roots are no published packages and are not matched.
 * Withdrawn advisories never match; advisories that are aliases of each other are reported once
 * (./aliases.ts).
 */
import type { Occurrence } from '../../model/model.js';
import { normalizeName, OSV_ECOSYSTEM_BY_PURL_TYPE } from '../ecosystems.js';
import type { AdvisoryLookup, AdvisorySnapshot, AffectedOccurrence, OsvAdvisory, VulnerabilityMatch, VulnerabilityReport } from '../types.js';
import { foldAliases } from './aliases.js';
import { commitOf, gitAffected } from './git.js';
import { AffectedEvaluator } from './ranges.js';

/** What the matcher reads of an occurrence. */
export type MatchedOccurrence = Pick<Occurrence, 'ref' | 'ecosystem' | 'name' | 'version' | 'source' | 'resolved' | 'facts'>;

interface Target {
  readonly ref: string;
  /** The version compared (a registry version, or the Go version for stdlib/toolchain). */
  readonly version: string;
  /** Set for a git dependency at a commit: only GIT ranges are evaluated. */
  readonly commit: string | null;
}

/** Go's own packages in OSV's Go database. */
const GO_TOOLCHAIN_PACKAGES = ['stdlib', 'toolchain'];

/**
 * The Go version a go.mod names, as OSV's Go records write it (`1.21` → `1.21.0`, `1.21rc2` →
 * `1.21.0-rc.2`, `go1.22.1` → `1.22.1`); null when it is none.
 */
export function goVersionOf(directive: string): string | null {
  const m = /^(?:go)?(\d+)\.(\d+)(?:\.(\d+))?(?:(rc|beta)(\d+))?$/.exec(directive.trim());
  if (m === null) return null;
  const base = `${m[1]}.${m[2]}.${m[3] ?? '0'}`;
  return m[4] === undefined ? base : `${base}-${m[4]}.${m[5]}`;
}

function addTarget(into: Map<string, Target[]>, name: string, target: Target): void {
  const list = into.get(name);
  if (list === undefined) into.set(name, [target]);
  else list.push(target);
}

/** The lookups to make: OSV ecosystem → normalised name → the occurrences to evaluate. */
function targetsOf(occurrences: readonly MatchedOccurrence[]): Map<string, Map<string, Target[]>> {
  const byEcosystem = new Map<string, Map<string, Target[]>>();
  const namesOf = (ecosystem: string): Map<string, Target[]> => {
    let names = byEcosystem.get(ecosystem);
    if (names === undefined) {
      names = new Map();
      byEcosystem.set(ecosystem, names);
    }
    return names;
  };
  for (const o of occurrences) {
    const ecosystem = OSV_ECOSYSTEM_BY_PURL_TYPE[o.ecosystem];
    if (ecosystem === undefined) continue;
    if (o.ecosystem === 'golang' && (o.source === 'root' || o.source === 'workspace')) {
      const directive = o.facts['toolchain'] ?? o.facts['go'];
      const version = directive === undefined ? null : goVersionOf(directive);
      if (version !== null) for (const name of GO_TOOLCHAIN_PACKAGES) addTarget(namesOf(ecosystem), name, { ref: o.ref, version, commit: null });
      continue;
    }
    if (o.source === 'registry' && o.version !== null && o.version !== '') {
      addTarget(namesOf(ecosystem), normalizeName(ecosystem, o.name), { ref: o.ref, version: o.version, commit: null });
    } else if (o.source === 'git') {
      const commit = commitOf(o.version, o.resolved);
      if (commit !== null) addTarget(namesOf(ecosystem), normalizeName(ecosystem, o.name), { ref: o.ref, version: o.version ?? commit, commit });
    }
  }
  return byEcosystem;
}

/** The occurrences one advisory affects among those named in `names`. */
function affectsOf(advisory: OsvAdvisory, ecosystem: string, names: ReadonlyMap<string, Target[]>, evaluator: AffectedEvaluator): AffectedOccurrence[] {
  const found = new Map<string, AffectedOccurrence>();
  for (const entry of advisory.affected ?? []) {
    const pkg = entry.package;
    // `Maven:https://maven.google.com`, `Packagist:https://packages.drupal.org/8`: the same
    // ecosystem's names from another repository, matched as the store indexes them (by the base name).
    if (pkg === undefined || (pkg.ecosystem !== ecosystem && !pkg.ecosystem.startsWith(`${ecosystem}:`))) continue;
    const targets = names.get(normalizeName(ecosystem, pkg.name));
    if (targets === undefined) continue;
    for (const t of targets) {
      let fixed: readonly string[];
      if (t.commit !== null) {
        if (!gitAffected(t.commit, entry)) continue;
        fixed = [];
      } else {
        const verdict = evaluator.evaluate(t.version, entry, ecosystem);
        if (!verdict.affected) continue;
        fixed = verdict.fixed;
      }
      const held = found.get(t.ref);
      const union = held === undefined ? [...fixed] : [...held.fixedVersions, ...fixed.filter((f) => !held.fixedVersions.includes(f))];
      found.set(t.ref, { ref: t.ref, version: t.version, fixedVersions: union });
    }
  }
  return [...found.values()];
}

export interface MatchOptions {
  readonly signal?: AbortSignal;
}

/** The inventory's vulnerabilities, with the snapshot of the advisories they were matched against. */
export async function matchVulnerabilities(
  occurrences: readonly MatchedOccurrence[],
  lookup: AdvisoryLookup,
  options: MatchOptions = {},
): Promise<VulnerabilityReport> {
  const targets = targetsOf(occurrences);
  const snapshots = lookup.snapshots();
  const found = await Promise.all(
    [...targets].map(async ([ecosystem, names]) => ({ ecosystem, names, advisories: await lookup.byPackages(ecosystem, [...names.keys()]) })),
  );
  options.signal?.throwIfAborted();
  const evaluator = new AffectedEvaluator();
  const byId = new Map<string, VulnerabilityMatch>();
  for (const { ecosystem, names, advisories } of found) {
    for (const advisory of advisories) {
      if (advisory.withdrawn !== undefined) continue;
      const affects = affectsOf(advisory, ecosystem, names, evaluator);
      if (affects.length === 0) continue;
      const held = byId.get(advisory.id);
      // The same record met in two ecosystems' sets: one match with both's occurrences.
      if (held !== undefined) byId.set(advisory.id, { ...held, affects: [...held.affects, ...affects.filter((a) => !held.affects.some((h) => h.ref === a.ref))] });
      else byId.set(advisory.id, { advisory, ecosystem, aliases: [...new Set(advisory.aliases ?? [])].sort(), affects });
    }
  }
  const loaded = await snapshots;
  // An ecosystem of the inventory with no advisories loaded (never synced or imported) is stated
  // too, with none: an empty list of vulnerabilities then says "nothing to match against".
  const known = new Set(loaded.map((s) => s.ecosystem));
  const unloaded = [...targets.keys()].filter((e) => !known.has(e)).map((ecosystem): AdvisorySnapshot => ({ ecosystem, advisories: 0, modifiedMax: null, syncedAt: null }));
  return { matches: foldAliases([...byId.values()]), snapshots: [...loaded, ...unloaded] };
}
