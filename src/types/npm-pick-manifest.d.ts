// npm-pick-manifest ships no typings; only the default export is used (src/ecosystems/npm/source.ts).
declare module 'npm-pick-manifest' {
  interface Packument {
    readonly versions: Record<string, unknown>;
    readonly 'dist-tags'?: Record<string, string>;
  }
  interface PickedManifest {
    readonly name: string;
    readonly version: string;
  }
  /** Picks the version a spec (exact version, range or dist-tag) selects; throws ETARGET when none does. */
  function pickManifest(packument: Packument, wanted: string, options?: Record<string, unknown>): PickedManifest;
  export default pickManifest;
}
