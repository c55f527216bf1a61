import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AdvisoryError } from './errors.js';
import { readAdvisoryZip, type AdvisoryArchiveLimits, type ArchiveEntry } from './zip.js';

/**
 * Reads the OSV documents of zips and folders given by path (`pkgscope advisories import`, the
 * CLI's `--advisories`): a zip is read as an OSV archive, a folder is walked for `*.json`
 * documents and `*.zip` archives (so the root of a bulk mirror, `<Ecosystem>/all.zip`, works as
 * well as a clone of an advisory repository), a `.json` file is one document.
 */

/** Bytes of a file's start: enough to tell a zip by its signature. */
async function startsWithZipSignature(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head[0] === 0x50 && head[1] === 0x4b;
  } finally {
    await handle.close();
  }
}

async function readJsonFile(path: string, size: number, limits: AdvisoryArchiveLimits, onEntry: (entry: ArchiveEntry) => Promise<void>): Promise<void> {
  if (size > limits.maxEntryBytes) {
    await onEntry({ name: path, skipped: 'too_large', detail: `${path}: ${size} bytes, over ${limits.maxEntryBytes}` });
    return;
  }
  const handle = await open(path, 'r');
  try {
    await onEntry({ name: path, bytes: await handle.readFile() });
  } finally {
    await handle.close();
  }
}

async function readFileEntry(path: string, size: number, limits: AdvisoryArchiveLimits, onEntry: (entry: ArchiveEntry) => Promise<void>): Promise<void> {
  if (path.toLowerCase().endsWith('.json')) await readJsonFile(path, size, limits, onEntry);
  else if (await startsWithZipSignature(path)) await readAdvisoryZip(path, limits, (entry) => onEntry({ ...entry, name: `${path}!${entry.name}` }));
}

/** Every file below `folder`, sorted by path (so an import reads the same order every time). */
async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(json|zip)$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * Hands every document of `paths` to `onEntry`. A path that does not exist or cannot be read is
 * an AdvisoryError `unreadable_path`; a broken archive `corrupt_archive` or `archive_limit`.
 */
export async function readAdvisoryPaths(paths: readonly string[], limits: AdvisoryArchiveLimits, onEntry: (entry: ArchiveEntry) => Promise<void>): Promise<void> {
  for (const given of paths) {
    const path = resolve(given);
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      throw new AdvisoryError('unreadable_path', `${given}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`, { cause: error });
    }
    if (info.isDirectory()) {
      let files: string[];
      try {
        files = await filesBelow(path);
      } catch (error) {
        throw new AdvisoryError('unreadable_path', `${given}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`, { cause: error });
      }
      for (const file of files) await readFileEntry(file, (await stat(file)).size, limits, onEntry);
    } else if (info.isFile()) {
      if (!path.toLowerCase().endsWith('.json') && !(await startsWithZipSignature(path))) {
        throw new AdvisoryError('corrupt_archive', `${given} is neither a zip archive nor a .json document`);
      }
      await readFileEntry(path, info.size, limits, onEntry);
    } else {
      throw new AdvisoryError('unreadable_path', `${given}: not a file or folder`);
    }
  }
}
