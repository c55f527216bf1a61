/**
 * Run by `npm run build` after tsc, from `dist/`: puts the validator's runtime helpers beside the
 * built module (tsc copies no `.cjs`), then writes the CycloneDX validator as standalone code so
 * that no process compiles the schemas again (`cyclonedx.ts` loads it when present).
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('.', import.meta.url));
const sources = fileURLToPath(new URL('../../../../src/sbom/validate/', import.meta.url));
await copyFile(join(sources, 'cyclonedx-runtime.cjs'), join(built, 'cyclonedx-runtime.cjs'));
// Imported only now: the module imports the helpers just copied.
const { cycloneDxStandaloneCode, STANDALONE_FILE } = await import('./cyclonedx.js');
await writeFile(join(built, STANDALONE_FILE), cycloneDxStandaloneCode());
