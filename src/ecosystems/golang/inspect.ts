import { baseOf, type SourceContext } from '../registration.js';
import { registryJson, registryText, type SourceHttp } from '../shared/archive.js';
import { isoDate, withdrawn, type InspectedPackage, type InspectedRelease, type PackageInspector } from '../shared/inspect.js';
import { record, text } from '../shared/narrow.js';
import { parseGoMod, type GoMod } from './parse-go-mod.js';
import { escapeModulePart, moduleOwner } from './registry.js';
import { GoFileError } from './syntax.js';
import { compareGoVersions, inInterval, isGoVersion } from './version.js';

/**
 * Go inspection through the module proxy protocol: `@v/list` (the tagged versions, undated),
 * `@v/<version>.info` (its `Time` and `Origin`), `@v/<version>.mod` (its `require` directives),
 * and the latest version's go.mod, where the module's author retracts versions (`retract`) and
 * deprecates the module (`// Deprecated:`). The proxy serves no license: unknown, never guessed.
 */

/** How many of the newest versions the list dates (one `.info` each): the rest stay undated. */
const DATED = 10;

function modOf(text: string | null): GoMod | null {
  if (text === null) return null;
  try {
    return parseGoMod(text);
  } catch (error) {
    // A go.mod this reader refuses tells nothing; the version's other facts still stand.
    if (error instanceof GoFileError) return null;
    throw error;
  }
}

class GoInspector implements PackageInspector {
  constructor(
    private readonly base: string,
    private readonly http: SourceHttp,
  ) {}

  private url(module: string, rest: string): string {
    return `${this.base}/${escapeModulePart(module)}/${rest}`;
  }

  private info(module: string, version: string): Promise<Record<string, unknown> | null> {
    return registryJson<Record<string, unknown>>(this.http, this.url(module, `@v/${escapeModulePart(version)}.info`), (d) => typeof d['Version'] === 'string');
  }

  private async mod(module: string, version: string): Promise<GoMod | null> {
    return modOf(await registryText(this.http, this.url(module, `@v/${escapeModulePart(version)}.mod`), 'text/plain'));
  }

  /** The highest release, else the highest pre-release, else the proxy's `@latest` (a module without tags). */
  private async latestOf(module: string, versions: readonly string[]): Promise<string | null> {
    const releases = versions.filter((v) => !v.includes('-'));
    const pick = (list: readonly string[]) => [...list].sort(compareGoVersions).at(-1) ?? null;
    const chosen = pick(releases) ?? pick(versions);
    if (chosen !== null) return chosen;
    const latest = await registryJson<Record<string, unknown>>(this.http, this.url(module, '@latest'), (d) => typeof d['Version'] === 'string');
    return latest === null ? null : text(latest['Version']);
  }

  async package(module: string): Promise<InspectedPackage | null> {
    const list = await registryText(this.http, this.url(module, '@v/list'), 'text/plain');
    if (list === null) return null;
    const names = list.split('\n').map((l) => l.trim()).filter(isGoVersion).sort(compareGoVersions);
    const latest = await this.latestOf(module, names);
    if (latest !== null && !names.includes(latest)) names.push(latest);
    const [latestMod, infos] = await Promise.all([
      latest === null ? null : this.mod(module, latest),
      Promise.all(names.slice(-DATED).map(async (v) => [v, isoDate((await this.info(module, v))?.['Time'])] as const)),
    ]);
    const dates = new Map(infos);
    const retracts = latestMod?.retracts ?? [];
    const versions = names.map((version) => ({
      version,
      publishedAt: dates.get(version) ?? null,
      yanked: retracts.some((r) => inInterval(version, r.low, r.high)),
      deprecated: false,
    }));
    return { name: module, versions, latest };
  }

  async release(module: string, version: string, known: InspectedPackage): Promise<InspectedRelease | null> {
    const [info, mod, latestMod] = await Promise.all([
      this.info(module, version),
      this.mod(module, version),
      known.latest === null ? null : this.mod(module, known.latest),
    ]);
    if (info === null) return null;
    const origin = record(info['Origin']);
    const url = text(origin?.['URL']);
    const retraction = latestMod?.retracts.find((r) => inInterval(version, r.low, r.high));
    const deprecated = latestMod?.deprecated ?? null;
    return {
      version,
      publishedAt: isoDate(info['Time']),
      license: null,
      description: null,
      homepage: null,
      repositoryUrl: url !== null && /^(https?|git|ssh):\/\//.test(url) ? url : null,
      supplier: moduleOwner(module),
      deprecated: withdrawn(deprecated !== null, 'deprecated', deprecated),
      yanked: null,
      retracted: retraction === undefined ? null : { as: 'retracted', reason: retraction.rationale === '' ? null : retraction.rationale },
      installScripts: null,
      dependencies: (mod?.requires ?? []).map((r) => ({ name: r.path, requirement: r.version, kind: r.indirect ? 'require (indirect)' : 'require', optional: false })),
      exports: null,
    };
  }
}

export function inspector(context: SourceContext): PackageInspector {
  return new GoInspector(baseOf(context.registries, 'go').replace(/\/+$/, ''), context.http);
}
