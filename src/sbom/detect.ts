import type { ClaimedFile, Ecosystem } from '../ecosystems/types.js';
import type { InputFile } from '../model/types.js';

/** The uploaded files each ecosystem claimed, and the files nobody claimed. */
export interface Detection {
  readonly claims: ReadonlyMap<Ecosystem, readonly ClaimedFile[]>;
  readonly unclaimed: readonly string[];
}

/**
 * Asks every ecosystem about every file. A claim by a well-known name wins over claims by content;
 * among equal claims the first registered ecosystem wins (registration order is the tie-break, so
 * the outcome never depends on timing). A claim that throws counts as no claim: detection must
 * never fail an analysis.
 */
export function detectFiles(files: readonly InputFile[], ecosystems: readonly Ecosystem[]): Detection {
  const claims = new Map<Ecosystem, ClaimedFile[]>();
  const unclaimed: string[] = [];
  for (const file of files) {
    let chosen: { ecosystem: Ecosystem; file: ClaimedFile } | null = null;
    for (const ecosystem of ecosystems) {
      let claim;
      try {
        claim = ecosystem.claim(file);
      } catch {
        claim = null;
      }
      if (claim === null) continue;
      if (chosen === null || (chosen.file.by === 'content' && claim.by === 'name')) {
        chosen = { ecosystem, file: { ...claim, path: file.path, content: file.content } };
      }
      if (claim.by === 'name') break;
    }
    if (chosen === null) {
      unclaimed.push(file.path);
      continue;
    }
    const list = claims.get(chosen.ecosystem);
    if (list) list.push(chosen.file);
    else claims.set(chosen.ecosystem, [chosen.file]);
  }
  // The same files give the same document whatever order they were uploaded in (the CLI finds
  // them sorted, an API caller sends them as it likes): ecosystems in registration order, each
  // one's files by path.
  const ordered = new Map<Ecosystem, ClaimedFile[]>();
  for (const ecosystem of ecosystems) {
    const list = claims.get(ecosystem);
    if (list) ordered.set(ecosystem, list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  }
  return { claims: ordered, unclaimed };
}
