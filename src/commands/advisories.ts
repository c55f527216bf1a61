import { parseArgs } from 'node:util';
import { AdvisoryError } from '../advisories/errors.js';
import { importAdvisoryPaths } from '../advisories/import.js';
import { AdvisoryStore, sourceStatusWire } from '../advisories/store.js';
import type { Database } from '../db/client.js';
import { ADVISORIES_USAGE, UsageError, type CommandIo } from './usage.js';

export interface AdvisoriesCommandSettings {
  /** The ecosystems the service syncs (listed by `status` even before their first sync). */
  readonly ecosystems: readonly string[];
}

const when = (date: string | null): string => date ?? '-';

/** `pkgscope advisories import|status`; returns the process exit code. */
export async function advisoriesCommand(db: Database, argv: readonly string[], io: CommandIo, settings: AdvisoriesCommandSettings): Promise<number> {
  const [action, ...rest] = argv;
  const store = new AdvisoryStore(db);
  switch (action) {
    case 'import': {
      const { positionals } = parseArgs({ args: [...rest], options: {}, allowPositionals: true, strict: true });
      if (positionals.length === 0) throw new UsageError('import takes at least one PATH (a zip or a folder of OSV JSON)');
      let result;
      try {
        result = await importAdvisoryPaths(store, positionals, { onWaiting: () => io.err('an advisory sync is running; waiting for it to finish') });
      } catch (error) {
        if (!(error instanceof AdvisoryError)) throw error;
        io.err(`nothing imported: ${error.code}: ${error.message}`);
        return 1;
      }
      for (const s of result.sources) io.err(`${s.ecosystem}: ${s.advisories} advisories loaded (newest modified ${when(s.modifiedMax)})`);
      if (result.skipped.total > 0) {
        const reasons = Object.entries(result.skipped.byReason)
          .map(([reason, count]) => `${reason} ${count}`)
          .join(', ');
        io.err(`${result.skipped.total} entries skipped (${reasons}); first: ${result.skipped.examples.join('; ')}`);
      }
      if (result.sources.length === 0) {
        io.err('no advisory of a known ecosystem was found in the given paths');
        return 1;
      }
      return 0;
    }
    case 'status': {
      const { values } = parseArgs({ args: [...rest], options: { json: { type: 'boolean', default: false } }, strict: true });
      const sources = await store.sources(settings.ecosystems);
      if (values.json) {
        io.out(JSON.stringify({ sources: sources.map((s) => ({ ...sourceStatusWire(s), origin: s.origin })) }, null, 2));
        return 0;
      }
      io.out(['ECOSYSTEM', 'STATE', 'ADVISORIES', 'MODIFIED MAX', 'SYNCED AT', 'REASON'].join('\t'));
      for (const s of sources) {
        io.out([s.ecosystem, s.state, String(s.advisories), when(s.modifiedMax), when(s.syncedAt), s.state === 'failed' ? (s.reason ?? '') : ''].join('\t'));
      }
      return 0;
    }
    default:
      throw new UsageError(ADVISORIES_USAGE);
  }
}
