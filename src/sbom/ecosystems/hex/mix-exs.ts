/**
 * `mix.exs` read as text, never run (it is an Elixir program): the project's literal `app:` and
 * `version:`, and each dependency tuple `{:app, "requirement", opts}` or `{:app, opts}` with the
 * literal options that matter here — `only:` (`:dev`, `:test`, `[:dev, :test]`: development
 * only), `optional: true`, `path:` (a local project), `git:`/`github:`. Options computed from
 * code (`runtime: Mix.env() == :dev`) are not guessed.
 */

export interface MixDependency {
  readonly app: string;
  readonly requirement: string;
  readonly devOnly: boolean;
  readonly optional: boolean;
  readonly local: boolean;
}

export interface MixProject {
  readonly app: string | null;
  readonly version: string | null;
  readonly dependencies: readonly MixDependency[];
}

const DEP = /\{\s*:([a-z_][a-z0-9_]*)\s*,\s*(?:"([^"]*)"\s*,?\s*)?([^{}]*)\}/g;

export function readMixExs(text: string): MixProject {
  const source = text.replace(/#[^\n]*/g, '');
  const app = /\bapp:\s*:([a-z_][a-z0-9_]*)/.exec(source)?.[1] ?? null;
  const version = /\bversion:\s*"([^"]+)"/.exec(source)?.[1] ?? null;
  const dependencies: MixDependency[] = [];
  const seen = new Set<string>();
  for (const m of source.matchAll(DEP)) {
    const name = m[1] ?? '';
    const opts = m[3] ?? '';
    const requirement = m[2];
    // A dependency states a requirement or a source; other `{:atom, …}` tuples are not dependencies.
    if (requirement === undefined && !/\b(git|github|path|hex|in_umbrella):/.test(opts)) continue;
    if (name === app || seen.has(name)) continue;
    seen.add(name);
    const only = /\bonly:\s*(\[[^\]]*\]|:[a-z_]+)/.exec(opts)?.[1] ?? null;
    const envs = only === null ? [] : [...only.matchAll(/:([a-z_]+)/g)].map((e) => e[1] ?? '');
    dependencies.push({
      app: name,
      requirement: requirement ?? (/\b(git|github|path):\s*"([^"]+)"/.exec(opts)?.slice(1, 3).join(': ') ?? ''),
      devOnly: envs.length > 0 && envs.every((e) => e === 'dev' || e === 'test' || e === 'docs' || e === 'bench'),
      optional: /\boptional:\s*true\b/.test(opts),
      local: /\b(path:|in_umbrella:\s*true)/.test(opts),
    });
  }
  return { app, version, dependencies };
}
