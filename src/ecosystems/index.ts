import { cargo } from './cargo/index.js';
import { cocoapods } from './cocoapods/index.js';
import { composer } from './composer/index.js';
import { gem } from './gem/index.js';
import { golang } from './golang/index.js';
import { hex } from './hex/index.js';
import { maven } from './maven/index.js';
import { npm } from './npm/index.js';
import { nuget } from './nuget/index.js';
import { pub } from './pub/index.js';
import { pypi } from './pypi/index.js';
import { swift } from './swift/index.js';

/**
 * Every ecosystem, one registration each (see registration.ts; docs/adding-an-ecosystem.md). The
 * order is detection's tie-break and the order of ecosystems in documents: keep it, add at the end.
 */
export const ECOSYSTEMS = [npm, golang, pypi, cargo, maven, gem, composer, swift, cocoapods, hex, pub, nuget] as const;

type Registered = (typeof ECOSYSTEMS)[number];

// The registries' keys and defaults are data of their own, which configuration reads without
// loading the ecosystems; each registration names its keys from it.
export { DEFAULT_PACKAGE_REGISTRIES, REGISTRY_KEYS, type RegistryKey } from './registries.js';

type WithPackages = Extract<Registered, { readonly packages: unknown }>;

/** The registries whose packages are inventory targets, by their first target prefix (`npm`, `crates`, `pypi`, …). */
export type PackageRegistry = WithPackages['packages']['prefixes'][0];
