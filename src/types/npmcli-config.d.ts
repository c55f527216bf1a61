// Minimal typings for @npmcli/config (it ships none): only what src/ecosystems/npm/options.ts uses.
declare module '@npmcli/config' {
  interface ConfigOptions {
    npmPath: string;
    definitions: Record<string, unknown>;
    shorthands: Record<string, unknown>;
    flatten: (obj: Record<string, unknown>, flat?: Record<string, unknown>) => Record<string, unknown>;
    argv?: string[];
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    execPath?: string;
    platform?: NodeJS.Platform;
  }
  export default class Config {
    constructor(options: ConfigOptions);
    load(): Promise<void>;
    get(key: string): unknown;
    readonly flat: Record<string, unknown>;
  }
}

declare module '@npmcli/config/lib/definitions/index.js' {
  const definitions: {
    definitions: Record<string, unknown>;
    shorthands: Record<string, unknown>;
    flatten: (obj: Record<string, unknown>, flat?: Record<string, unknown>) => Record<string, unknown>;
  };
  export default definitions;
}
