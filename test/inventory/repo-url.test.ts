import { describe, expect, it } from 'vitest';
import { safeRepositoryRoot } from '../../src/ecosystems/shared/repo-url.js';

describe('safe repository roots for recovery guidance', () => {
  it.each([
    ['git+https://git.example.test/owner/gone.git', 'https://git.example.test/owner/gone'],
    ['git+https://user:secret@github.com/owner/repo.git#readme', 'https://github.com/owner/repo'],
    ['git+ssh://git@github.com/owner/repo.git', 'https://github.com/owner/repo'],
    ['git://github.com/owner/repo.git', 'https://github.com/owner/repo'],
    ['git@github.com:owner/repo.git', 'https://github.com/owner/repo'],
    ['https://github.com/owner/repo/tree/main/packages/x', 'https://github.com/owner/repo'],
    ['https://gitlab.com/group/sub/repo/-/tree/main', 'https://gitlab.com/group/sub/repo'],
    ['https://token@git.example.test:8443/owner/repo?x=1', 'https://git.example.test/owner/repo'],
    ['github:owner/repo', 'https://github.com/owner/repo'],
    ['owner/repo', 'https://github.com/owner/repo'],
  ])('%s → %s', (raw, safe) => {
    expect(safeRepositoryRoot(raw)).toBe(safe);
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'https://github.com/owner', 'not a url', ''])('refuses %j', (raw) => {
    expect(safeRepositoryRoot(raw)).toBeNull();
  });
});
