
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

/** The options npm-registry-fetch and make-fetch-happen read by name (besides `//host/:…` credentials and `@scope:registry`). */
const FETCH_OPTION_NAMES = new Set([
  'agent', 'algorithms', 'authType', 'ca', 'cert', 'fetchRetries', 'fetchRetryFactor', 'fetchRetryMaxtimeout', 'fetchRetryMintimeout',
  'forceAuth', 'httpsProxy', 'key', 'localAddress', 'maxSockets', 'noProxy', 'npmCommand', 'npmSession', 'offline', 'otp',
  'preferOffline', 'preferOnline', 'proxy', 'registry', 'retry', 'scope', 'strictSSL', 'timeout', 'userAgent', '_auth',
]);

/**
 * The part of npm's options a metadata fetch reads: the registries, credentials, TLS and proxy
 * settings, and nothing of npm's other 100-odd settings. npm-registry-fetch copies its options
 * object several times per request, so the whole configuration cost about half a millisecond of
 * CPU per fetch; HTTP caching stays off (our own metadata cache replaces it).
 */
export function fetchOptionsOf(options: NpmOptions): NpmOptions {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key.startsWith('//') || key.startsWith('@') || FETCH_OPTION_NAMES.has(key)) kept[key] = value;
  }
  return Object.freeze(kept);
}
