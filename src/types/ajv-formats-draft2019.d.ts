// ajv-formats-draft2019 ships no typings; only its default export is used (src/sbom/validate/cyclonedx.ts).
declare module 'ajv-formats-draft2019' {
  import type { Ajv } from 'ajv';
  function addFormats(ajv: Ajv, options?: { formats?: string[] }): Ajv;
  export default addFormats;
}
