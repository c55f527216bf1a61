// npm-registry-fetch's credential lookup (lib/auth.js), used by src/ecosystems/npm/registry.ts to
// send exactly the credentials npm would; the package types only its main module.
declare module 'npm-registry-fetch/lib/auth.js' {
  interface Auth {
    readonly token: string | null;
    readonly auth: string | null;
    readonly cert: string | null;
    readonly key: string | null;
  }
  function getAuth(uri: string, options: Readonly<Record<string, unknown>>): Auth;
  export default getAuth;
}
