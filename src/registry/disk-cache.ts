import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { MetadataCache } from '../sbom/enrich-types.js';
import type { PackageMetadata } from '../sbom/metadata.js';

interface Stored {
  readonly key: string;
  readonly fetchedAt: number;
  readonly metadata: PackageMetadata;
}

/** `$XDG_CACHE_HOME/pkgscope/metadata` (or `~/.cache/…`): where the CLI keeps registry metadata. */
export function defaultCacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'pkgscope', 'metadata');
}

/**
 * The CLI's metadata cache: one small JSON file per coordinate, written atomically (temp file,
 * then rename) so concurrent CLI runs never read a half-written entry.
 */
export class DiskMetadataCache implements MetadataCache {
  private readonly io = pLimit(32);

  constructor(
    private readonly dir: string = defaultCacheDir(),
    private readonly maxAgeMs = 7 * 24 * 3600 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  private file(key: string): string {
    const hash = createHash('sha256').update(key).digest('hex');
    return join(this.dir, hash.slice(0, 2), `${hash.slice(2)}.json`);
  }

  async getMany(keys: readonly string[]): Promise<Map<string, PackageMetadata>> {
    const result = new Map<string, PackageMetadata>();
    await Promise.all(
      keys.map((key) =>
        this.io(async () => {
          try {
            const stored = JSON.parse(await readFile(this.file(key), 'utf8')) as Stored;
            if (stored.key === key && this.now() - stored.fetchedAt < this.maxAgeMs) result.set(key, stored.metadata);
          } catch {
            // missing or unreadable: a miss
          }
        }),
      ),
    );
    return result;
  }

  async setMany(entries: ReadonlyMap<string, PackageMetadata>): Promise<void> {
    await Promise.all(
      [...entries].map(([key, metadata]) =>
        this.io(async () => {
          const file = this.file(key);
          await mkdir(join(file, '..'), { recursive: true });
          const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
          const stored: Stored = { key, fetchedAt: this.now(), metadata };
          await writeFile(temp, JSON.stringify(stored));
          await rename(temp, file);
        }),
      ),
    );
  }
}
