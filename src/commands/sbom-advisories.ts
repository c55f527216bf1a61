import type { AdvisoryLookup } from '../advisories/types.js';
import type { CommandIo } from './usage.js';

/** Where `pkgscope sbom --vulnerabilities` reads advisories, and how to let go of it. */
export interface OpenedAdvisories {
  readonly lookup: AdvisoryLookup;
  close(): Promise<void>;
}

/**
 * The advisories of `--advisories PATH…` (zips and folders of OSV JSON, read into memory), else
 * the service's mirror at `databaseUrl`. Null, with the reason on stderr, when they cannot be
 * read (exit 3: an input could not be read). Loaded only when vulnerabilities are asked for.
 */
export async function openAdvisories(paths: readonly string[], databaseUrl: string | null, io: Pick<CommandIo, 'err'>): Promise<OpenedAdvisories | null> {
  if (paths.length > 0) {
    const [{ openFileLookup }, { AdvisoryError }] = await Promise.all([import('../advisories/file-lookup.js'), import('../advisories/errors.js')]);
    try {
      const lookup = await openFileLookup(paths);
      if (lookup.skipped > 0) io.err(`pkgscope: warning: ${lookup.skipped} advisory entries skipped (not valid OSV documents)`);
      const sets = await lookup.snapshots();
      if (!sets.some((s) => s.advisories > 0)) io.err('pkgscope: warning: no advisories of an ecosystem pkgscope matches were found in --advisories');
      return { lookup, close: () => Promise.resolve() };
    } catch (error) {
      if (error instanceof AdvisoryError) {
        io.err(`pkgscope: --advisories: ${error.message}`);
        return null;
      }
      throw error;
    }
  }
  if (databaseUrl === null) {
    io.err('pkgscope: --vulnerabilities needs --advisories PATH (no advisory database is configured)');
    return null;
  }
  const [{ connectDatabase }, { pgAdvisoryLookup }, { redactUrl }] = await Promise.all([
    import('../db/client.js'),
    import('../advisories/pg-lookup.js'),
    import('../config-env.js'),
  ]);
  const database = connectDatabase(databaseUrl, { max: 2, applicationName: 'pkgscope-cli' });
  const lookup = pgAdvisoryLookup(database.db);
  try {
    const sets = await lookup.snapshots();
    // An ecosystem synced empty is listed with none.
    if (!sets.some((s) => s.advisories > 0)) io.err('pkgscope: warning: the advisory mirror holds no advisories (pkgscope advisories import PATH… fills it)');
  } catch (error) {
    await database.close();
    const code = (error as { code?: unknown }).code;
    io.err(`pkgscope: cannot read the advisory mirror at ${redactUrl(databaseUrl)}${typeof code === 'string' ? ` (${code})` : ''}; --advisories PATH reads OSV files instead`);
    return null;
  }
  return { lookup, close: () => database.close() };
}
