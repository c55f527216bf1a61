import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The text of a recorded changelog under test/fixtures/changelogs/. */
export function changelogFixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/changelogs/${name}`, import.meta.url)), 'utf8');
}
