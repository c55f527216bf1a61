import { describe, expect, it } from 'vitest';
import { changelogFormat, findChangelog } from '../../src/packages/changelog/index.js';

describe('findChangelog', () => {
  it('finds the changelog of a package listing, whatever its case', () => {
    expect(findChangelog(['package.json', 'index.js', 'History.md', 'LICENSE', 'Readme.md'])).toBe('History.md');
    expect(findChangelog(['esprima.js', 'ChangeLog', 'README.md'])).toBe('ChangeLog');
    expect(findChangelog(['setup.py', 'docs/index.rst', 'NEWS.rst'])).toBe('NEWS.rst');
    expect(findChangelog(['RELEASE-NOTES.txt', 'main.go'])).toBe('RELEASE-NOTES.txt');
    expect(findChangelog(['release_notes.markdown'])).toBe('release_notes.markdown');
  });

  it('answers null when the package ships none', () => {
    expect(findChangelog([])).toBeNull();
    expect(findChangelog(['index.js', 'changelog/index.js', 'CHANGELOG.js', 'src/changes.ts', 'changelog.md.bak'])).toBeNull();
  });

  it('prefers the root, then CHANGELOG over CHANGES over HISTORY over NEWS over RELEASES', () => {
    expect(findChangelog(['docs/CHANGELOG.md', 'HISTORY.md'])).toBe('HISTORY.md');
    expect(findChangelog(['NEWS', 'HISTORY.md', 'CHANGES.rst', 'RELEASES.md'])).toBe('CHANGES.rst');
    expect(findChangelog(['RELEASES.md', 'CHANGELOG.rst', 'NEWS.md'])).toBe('CHANGELOG.rst');
    expect(findChangelog(['RELEASE-NOTES.md', 'RELEASES.md'])).toBe('RELEASES.md');
  });

  it('prefers Markdown over no extension over .txt over .rst for one name, then the path', () => {
    expect(findChangelog(['CHANGELOG.rst', 'CHANGELOG.txt', 'CHANGELOG', 'CHANGELOG.md'])).toBe('CHANGELOG.md');
    expect(findChangelog(['CHANGELOG.rst', 'CHANGELOG.txt'])).toBe('CHANGELOG.txt');
    expect(findChangelog(['changelog.md', 'CHANGELOG.md'])).toBe('CHANGELOG.md');
    expect(findChangelog(['CHANGELOG.md', 'changelog.md'])).toBe('CHANGELOG.md');
  });

  it('ignores dependencies and vendored or hidden folders', () => {
    expect(findChangelog(['node_modules/qs/CHANGELOG.md', 'index.js'])).toBeNull();
    expect(findChangelog(['vendor/github.com/x/y/CHANGELOG.md', 'third_party/z/NEWS', '.github/CHANGELOG.md', 'lib/HISTORY.md'])).toBe('lib/HISTORY.md');
  });

  it("treats a single folder holding every path as the root (an archive's package/ or name-1.0/)", () => {
    expect(findChangelog(['package/package.json', 'package/CHANGELOG.md', 'package/docs/HISTORY.md'])).toBe('package/CHANGELOG.md');
    expect(findChangelog(['flask-3.0.3/docs/changes.rst', 'flask-3.0.3/CHANGES.rst', 'flask-3.0.3/src/flask/app.py'])).toBe('flask-3.0.3/CHANGES.rst');
  });
});

describe('changelogFormat', () => {
  it('reads the format from the name', () => {
    expect(changelogFormat('History.md')).toBe('markdown');
    expect(changelogFormat('docs/CHANGES.MARKDOWN')).toBe('markdown');
    expect(changelogFormat('NEWS.rst')).toBe('rst');
    expect(changelogFormat('ChangeLog')).toBe('text');
    expect(changelogFormat('CHANGES.txt')).toBe('text');
  });
});
