
/**
 * The user's npm configuration (npmrc files, npm_config_* environment), read by npm's own
 * config library and flattened into the options pacote, npm-registry-fetch and Arborist take:
 * the registry address, scoped registries and credentials all come from here, never from code.
 */
export type NpmOptions = Readonly<Record<string, unknown>>;

let loaded: Promise<NpmOptions> | undefined;

export function loadNpmOptions(cwd: string = process.cwd()): Promise<NpmOptions> {
  loaded ??= (async () => {
    // Loaded here, not at import: a run that never reaches the npm registry never reads npm's configuration.
    const [{ default: Config }, { default: npmDefinitions }] = await Promise.all([import('@npmcli/config'), import('@npmcli/config/lib/definitions/index.js')]);
    const { definitions, flatten, shorthands } = npmDefinitions;
    const config = new Config({
      npmPath: cwd,
      definitions,
      flatten,
      shorthands,
      argv: [],
      env: process.env,
      cwd,
      execPath: process.execPath,
      platform: process.platform,
    });
    await config.load();
    return Object.freeze({ ...config.flat });
  })();
  return loaded;
}

/** The registry base URL these options point at, without a trailing slash. */
export function registryOf(options: NpmOptions): string {
  const registry = options['registry'];
  if (typeof registry !== 'string' || registry === '') throw new Error('npm configuration has no registry');
  return registry.replace(/\/+$/, '');
}
