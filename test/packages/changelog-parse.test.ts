import { describe, expect, it } from 'vitest';
import { CHANGELOG_LIMITS, parseChangelog, type ChangelogEntry } from '../../src/packages/changelog/index.js';
import { changelogFixture } from './changelog-fixtures.js';

function heads(entries: readonly ChangelogEntry[]): [string, string | null][] {
  return entries.map((e) => [e.version, e.date]);
}

describe('parseChangelog on real files', () => {
  it('reads express History.md: `4.21.2 / 2024-11-06` underlined with ===', () => {
    const entries = parseChangelog(changelogFixture('express-History.md'), 'markdown');
    expect(entries).toHaveLength(15);
    expect(heads(entries.slice(0, 3))).toEqual([
      ['4.21.2', '2024-11-06'],
      ['4.21.1', '2024-10-08'],
      ['4.21.0', '2024-09-11'],
    ]);
    expect(entries[0]).toEqual({
      version: '4.21.2',
      date: '2024-11-06',
      heading: '4.21.2 / 2024-11-06',
      line: 1,
      text: '* deps: path-to-regexp@0.1.12\n  - Fix backtracking protection\n* deps: path-to-regexp@0.1.11\n  - Throws an error on invalid path values',
    });
    const v4171 = entries.find((e) => e.version === '4.17.1');
    expect(v4171?.date).toBe('2019-05-25');
    expect(v4171?.line).toBe(180);
    expect(v4171?.text).not.toContain('===');
    expect(v4171?.text).not.toContain('4.17.0');
  });

  it('reads the same entries from CRLF line endings', () => {
    const lf = changelogFixture('express-History.md');
    expect(parseChangelog(lf.replace(/\n/g, '\r\n'), 'markdown')).toEqual(parseChangelog(lf, 'markdown'));
  });

  it('reads Keep a Changelog (argparse): sections stay in the entry, link definitions follow their entry', () => {
    const entries = parseChangelog(changelogFixture('argparse-CHANGELOG.md'), 'markdown');
    expect(entries).toHaveLength(30);
    expect(heads(entries.slice(0, 2))).toEqual([
      ['2.0.1', '2020-08-29'],
      ['2.0.0', '2020-08-14'],
    ]);
    expect(entries.at(-1)).toMatchObject({ version: '0.1.0', date: '2012-05-16' });
    expect(entries[0]?.heading).toBe('2.0.1 - 2020-08-29');
    expect(entries[0]?.text).toBe(
      '### Fixed\n- Fix issue with `process.argv` when used with interpreters (`coffee`, `ts-node`, etc.), #150.\n\n[2.0.1]: https://github.com/nodeca/argparse/compare/2.0.0...2.0.1',
    );
    // The footer of definitions belongs to no entry's body.
    expect(entries.at(-1)?.text.split('\n').filter((l) => l.startsWith('['))).toEqual(['[0.1.0]: https://github.com/nodeca/argparse/releases/tag/0.1.0']);
  });

  it('reads Keep a Changelog with pre-releases (commander) and appends the pull requests an entry cites', () => {
    const entries = parseChangelog(changelogFixture('commander-CHANGELOG.md'), 'markdown');
    expect(entries.map((e) => e.version)).toEqual(['7.2.0', '7.1.0', '7.0.0-2', '7.0.0-1', '7.0.0-0', '6.2.1', '6.2.0', '6.1.0', '6.0.0', '6.0.0-0']);
    expect(entries[2]).toMatchObject({ version: '7.0.0-2', date: '2020-12-14', line: 44 });
    const first = entries[0]?.text ?? '';
    expect(first).toMatch(/^### Added\n\n- TypeScript typing for `parent` property/);
    expect(first).toContain('### Changed');
    expect(first.split('\n').slice(-4)).toEqual([
      '[7.2.0]: https://github.com/tj/commander.js/compare/v7.1.0...v7.2.0',
      '[#1475]: https://github.com/tj/commander.js/pull/1475',
      '[#1483]: https://github.com/tj/commander.js/pull/1483',
      '[#1477]: https://github.com/tj/commander.js/pull/1477',
    ]);
    // The [Unreleased] definition is used by no entry.
    expect(entries.some((e) => e.text.includes('[Unreleased]:'))).toBe(false);
  });

  it('reads conventional-changelog output (cliui), where patch releases are ### like their sections', () => {
    const entries = parseChangelog(changelogFixture('cliui-CHANGELOG.md'), 'markdown');
    expect(heads(entries)).toEqual([
      ['9.0.1', '2025-03-17'],
      ['9.0.0', '2025-03-16'],
      ['8.0.1', '2022-10-01'],
      ['8.0.0', '2022-09-30'],
      ['7.0.4', '2020-11-08'],
      ['7.0.3', '2020-10-16'],
      ['7.0.2', '2020-10-14'],
      ['7.0.1', '2020-08-16'],
      ['7.0.0', '2020-08-16'],
      ['6.0.0', '2019-11-10'],
      ['5.0.0', '2019-04-10'],
      ['4.1.0', '2018-04-23'],
      ['4.0.0', '2017-12-18'],
      ['3.2.0', '2016-04-11'],
    ]);
    expect(entries[0]?.heading).toBe('9.0.1 (2025-03-17)');
    const v704 = entries[4]?.text ?? '';
    expect(v704).toMatch(/^### Bug Fixes\n\n\* \*\*deno:\*\* import UIOptions from definitions/);
    expect(v704).not.toContain('7.0.3');
    expect(entries[1]?.text).toContain('### ⚠ BREAKING CHANGES');
  });

  it('reads changesets output (ts-graphviz): `## 2.1.6` then `### Patch Changes`, no dates', () => {
    const entries = parseChangelog(changelogFixture('ts-graphviz-CHANGELOG.md'), 'markdown');
    expect(heads(entries)).toEqual([
      ['2.1.6', null],
      ['2.1.5', null],
      ['2.1.4', null],
      ['2.1.3', null],
      ['2.1.2', null],
      ['2.1.1', null],
      ['2.1.0', null],
    ]);
    expect(entries[0]?.text).toMatch(/^### Patch Changes\n\n- Updated dependencies \[\[`c043ba9`\]/);
    expect(entries[0]?.text).toContain('  - @ts-graphviz/core@2.0.7');
    // The title `# ts-graphviz` is no release and its line is in no entry.
    expect(entries.every((e) => !e.text.includes('# ts-graphviz'))).toBe(true);
  });

  it('reads a plain-text ChangeLog (esprima): `2018-06-17: Version 4.0.1`, body dedented', () => {
    const entries = parseChangelog(changelogFixture('esprima-ChangeLog'), 'text');
    expect(entries).toHaveLength(14);
    expect(entries[0]).toMatchObject({ version: '4.0.1', date: '2018-06-17', heading: '2018-06-17: Version 4.0.1', line: 1 });
    expect(entries[0]?.text.split('\n')[0]).toBe('*  Fix parsing async get/set in a class (issue 1861, 1875)');
    expect(entries[1]).toMatchObject({ version: '4.0.0', date: '2017-06-10', line: 11 });
  });

  it('reads towncrier-style reStructuredText: project name before the version, sections become Markdown headings', () => {
    const entries = parseChangelog(changelogFixture('towncrier-style-NEWS.rst'), 'rst');
    expect(heads(entries)).toEqual([
      ['2.1.0', '2024-08-19'],
      ['2.1.0rc1', '2024-08-02'],
      ['2.0.0', '2024-05-31'],
      ['1.9.2', '2024-01-15'],
      ['1.9.0.post1', null],
    ]);
    expect(entries[0]?.heading).toBe('Sample 2.1.0 (2024-08-19)');
    expect(entries[0]?.line).toBe(8);
    expect(entries[0]?.text).toBe(
      [
        '### Features',
        '',
        '- Headings of the `NEWS` file can now name the project before the version. ([#201](https://example.org/sample/issues/201))',
        '- The `--date` switch accepts `yyyy/mm/dd` as well. ([#203](https://example.org/sample/issues/203))',
        '',
        '### Bugfixes',
        '',
        '- Fragments in a sub-folder are no longer read twice. ([#199](https://example.org/sample/issues/199))',
      ].join('\n'),
    );
    expect(entries[2]?.text).toBe('No significant changes.');
    // The preamble and the title belong to no entry.
    expect(entries.some((e) => e.text.includes('Release notes'))).toBe(false);
  });

  it('reads Pallets-style reStructuredText: `Version 3.0.3`, the date from the `Released` line', () => {
    const entries = parseChangelog(changelogFixture('pallets-style-CHANGES.rst'), 'rst');
    expect(heads(entries)).toEqual([
      ['3.1.0', null],
      ['3.0.3', '2024-04-07'],
      ['3.0.2', '2024-02-03'],
      ['3.0.0', '2023-09-30'],
    ]);
    expect(entries[1]?.text).toMatch(/^Released 2024-04-07\n\n- {3}Look the default digest up/);
    expect(entries[1]?.text).toContain('Create the `cli` group in the concrete application class only. `391`');
  });
});

describe('parseChangelog heading styles', () => {
  it('reads `## v1.2.3`, `# 1.2.3 (date)`, `Release`/`Version` prefixes and several date forms', () => {
    const md = [
      '# Changelog',
      '',
      '## v2.0.0-beta.1 - January 5, 2021',
      'beta',
      '## Release 1.4.0 (1 Jan 2021)',
      'release',
      '## Version 1.3.0 — 2020/12/24',
      'version',
      '# 1.2.0 (2020-11-30)',
      'hash',
      '## [1.1.0](https://example.org/compare/v1.0.0...v1.1.0) (2020-11-01)',
      'linked',
      '## **1.0.1** / 3rd March, 2020',
      'bold',
      '## 1.0.0rc1 (30/01/2020)',
      'rc',
      '## 0.9.0 (2020-02-30)',
      'impossible date',
    ].join('\n');
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.date, e.text])).toEqual([
      ['v2.0.0-beta.1', '2021-01-05', 'beta'],
      ['1.4.0', '2021-01-01', 'release'],
      ['1.3.0', '2020-12-24', 'version'],
      ['1.2.0', '2020-11-30', 'hash'],
      ['1.1.0', '2020-11-01', 'linked'],
      ['1.0.1', '2020-03-03', 'bold'],
      ['1.0.0rc1', '2020-01-30', 'rc'],
      ['0.9.0', null, 'impossible date'],
    ]);
  });

  it('reads `### 1.2.3` under year sections; the year closes the entry above it', () => {
    const md = ['## 2021', '', '### 1.2.0', '- two', '', '### 1.1.0', '- one', '', '## 2020', 'A year of rest.', '', '### 1.0.0', '- first'].join('\n');
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.text])).toEqual([
      ['1.2.0', '- two'],
      ['1.1.0', '- one'],
      ['1.0.0', '- first'],
    ]);
  });

  it('reads lerna/conventional majors as `#` among `##` releases, and keeps `[Unreleased]` out', () => {
    const md = [
      '## [Unreleased]',
      '- not yet',
      '# [2.0.0](https://example.org/compare/v1.9.0...v2.0.0) (2020-06-01)',
      '### BREAKING CHANGES',
      '* gone',
      '## [1.9.0](https://example.org/compare/v1.8.0...v1.9.0) (2020-05-01)',
      '### Features',
      '* new',
    ].join('\n');
    const entries = parseChangelog(md, 'markdown');
    expect(entries.map((e) => [e.version, e.date, e.text])).toEqual([
      ['2.0.0', '2020-06-01', '### BREAKING CHANGES\n* gone'],
      ['1.9.0', '2020-05-01', '### Features\n* new'],
    ]);
  });

  it('drops conventional-changelog anchors and one-line HTML comments from the text', () => {
    const md = ['<a name="1.1.0"></a>', '## [1.1.0](https://example.org/compare/v1.0.0...v1.1.0) (2018-03-02)', '<!-- markdownlint-disable MD024 -->', '* new', '', '<a name="1.0.0"></a>', '# 1.0.0 (2018-01-01)', '* first'].join('\n');
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.text])).toEqual([
      ['1.1.0', '* new'],
      ['1.0.0', '* first'],
    ]);
  });

  it('reads Rust-style changelogs (release-plz and cargo projects)', () => {
    const md = [
      '# Changelog',
      '',
      '## [Unreleased]',
      '',
      '## [0.2.8](https://example.org/compare/crate-v0.2.7...crate-v0.2.8) - 2025-12-18',
      '',
      '### Other',
      '',
      '- update README.md',
      '',
      '## 0.2.7 (October 17th, 2025)',
      '',
      '### Added',
      '- Expose the pty',
    ].join('\n');
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.date])).toEqual([
      ['0.2.8', '2025-12-18'],
      ['0.2.7', '2025-10-17'],
    ]);
  });

  it('reads setext `---` releases and leaves non-release sub-headings in the text', () => {
    const md = ['1.1.0', '-----', '', 'Fixed', '=====', '', 'oops', '', '1.0.0', '-----', 'first'].join('\n');
    // `Fixed` over === is above the release level (2): it closes 1.1.0.
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.text])).toEqual([
      ['1.1.0', ''],
      ['1.0.0', 'first'],
    ]);
  });

  it('does not take year headings, prose after a version, or headings inside code blocks as releases', () => {
    const md = ['## 1.0.0', '```md', '## 0.9.0', '```', '### 2.0 migration guide', 'text', '## 2020', '## 0.1.0'].join('\n');
    const entries = parseChangelog(md, 'markdown');
    expect(entries.map((e) => e.version)).toEqual(['1.0.0', '0.1.0']);
    expect(entries[0]?.text).toBe('```md\n## 0.9.0\n```\n### 2.0 migration guide\ntext');
  });

  it('keeps a sub-heading that names a tool and its version inside the release', () => {
    const md = ['## 3.0.0', '### Node.js 20.1', 'is now required', '## Sample 2.0.0 (2020-01-01)', 'named release'].join('\n');
    expect(parseChangelog(md, 'markdown').map((e) => [e.version, e.date, e.text])).toEqual([
      ['3.0.0', null, '### Node.js 20.1\nis now required'],
      ['2.0.0', '2020-01-01', 'named release'],
    ]);
    const text = ['1.1.0 / 2020-02-02', '  * Node 14.17', 'Node 14.17', 'still 1.1.0', '1.0.0', '  * first'].join('\n');
    expect(parseChangelog(text, 'text').map((e) => [e.version, e.text])).toEqual([
      ['1.1.0', '* Node 14.17\nNode 14.17\nstill 1.1.0'],
      ['1.0.0', '* first'],
    ]);
  });

  it('reads rST overlined titles and `~~~` release underlines', () => {
    const rst = ['=========', 'Changelog', '=========', '', '1.0.0 (2020-01-01)', '~~~~~~~~~~~~~~~~~~', '', '* first ``thing``', '', 'Unreleased', '~~~~~~~~~~'].join('\n');
    expect(parseChangelog(rst, 'rst')).toEqual([{ version: '1.0.0', date: '2020-01-01', heading: '1.0.0 (2020-01-01)', text: '* first `thing`', line: 5 }]);
  });
});

describe('parseChangelog bounds', () => {
  it('reads a 5 MB line of `#` into nothing', () => {
    expect(parseChangelog('#'.repeat(5 * 1024 * 1024), 'markdown')).toEqual([]);
    expect(parseChangelog('#'.repeat(5 * 1024 * 1024), 'rst')).toEqual([]);
    expect(parseChangelog('#'.repeat(5 * 1024 * 1024), 'text')).toEqual([]);
  });

  it('keeps at most maxEntries of 100k release headings', () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `## 1.0.${String(i)}\n- change ${String(i)}`).join('\n');
    for (const format of ['markdown', 'text'] as const) {
      const entries = parseChangelog(text, format);
      expect(entries).toHaveLength(CHANGELOG_LIMITS.maxEntries);
      expect(entries[0]).toEqual({ version: '1.0.0', date: null, heading: '1.0.0', text: '- change 0', line: 1 });
    }
    const rst = Array.from({ length: 100_000 }, (_, i) => `1.0.${String(i)}\n-----\n`).join('\n');
    expect(parseChangelog(rst, 'rst')).toHaveLength(CHANGELOG_LIMITS.maxEntries);
  });

  it('reads no further than maxLines lines', () => {
    const text = `## 2.0.0\nkept${'\n'.repeat(CHANGELOG_LIMITS.maxLines)}## 1.0.0\nlost`;
    expect(parseChangelog(text, 'markdown').map((e) => [e.version, e.text])).toEqual([['2.0.0', 'kept']]);
    expect(parseChangelog('\n'.repeat(4_000_000), 'text')).toEqual([]);
  });

  it('keeps 100k non-release headings inside one bounded entry', () => {
    const text = `## 1.0.0\n${'### Added\n'.repeat(100_000)}`;
    const entries = parseChangelog(text, 'markdown');
    expect(entries).toHaveLength(1);
    expect(entries[0]?.text.length).toBeLessThanOrEqual(CHANGELOG_LIMITS.maxEntryTextChars);
    expect(entries[0]?.text.startsWith('### Added\n### Added')).toBe(true);
  });

  it('cuts an entry text at a line boundary and ignores input past maxInputChars', () => {
    const line = 'x'.repeat(999);
    const text = `## 2.0.0\n${`${line}\n`.repeat(200)}## 1.0.0\nend\n${'y'.repeat(CHANGELOG_LIMITS.maxInputChars)}\n## 0.1.0\nlost`;
    const entries = parseChangelog(text, 'markdown');
    expect(entries.map((e) => e.version)).toEqual(['2.0.0', '1.0.0']);
    expect(entries[0]?.text.split('\n').every((l) => l === line)).toBe(true);
    expect(entries[0]?.text.length).toBeLessThanOrEqual(CHANGELOG_LIMITS.maxEntryTextChars);
  });
});
