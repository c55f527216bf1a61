import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { changelogCoverage, entriesBetween, normalizeVersion, parseChangelog, type ChangelogEntry } from '../../src/packages/changelog/index.js';
import { changelogFixture } from './changelog-fixtures.js';

const npmOrder = (a: string, b: string): number => semver.compare(a, b);
const pypiOrder = (a: string, b: string): number => {
  if (pep440.parse(a) === null || pep440.parse(b) === null) throw new Error(`not a PEP 440 version: ${a} or ${b}`);
  return pep440.compare(a, b);
};

const versions = (entries: readonly ChangelogEntry[]): string[] => entries.map((e) => e.version);

describe('entriesBetween (npm, semver order)', () => {
  const express = parseChangelog(changelogFixture('express-History.md'), 'markdown');
  const commander = parseChangelog(changelogFixture('commander-CHANGELOG.md'), 'markdown');

  it('gives from < version <= to, newest first', () => {
    expect(versions(entriesBetween(express, '4.17.1', '4.18.2', npmOrder))).toEqual(['4.18.2', '4.18.1', '4.18.0', '4.17.3', '4.17.2']);
    expect(versions(entriesBetween(express, '4.21.1', '4.21.2', npmOrder))).toEqual(['4.21.2']);
    expect(entriesBetween(express, '4.21.2', '4.21.2', npmOrder)).toEqual([]);
    expect(entriesBetween(express, '4.21.2', '4.17.1', npmOrder)).toEqual([]);
  });

  it('takes no lower bound from null, and reaches versions outside the file as bounds', () => {
    expect(versions(entriesBetween(express, null, '4.17.1', npmOrder))).toEqual(['4.17.1', '4.17.0']);
    expect(versions(entriesBetween(express, '4.20.0', '5.0.0', npmOrder))).toEqual(['4.21.2', '4.21.1', '4.21.0']);
  });

  it('orders pre-releases by semver', () => {
    expect(versions(entriesBetween(commander, '6.2.1', '7.0.0', npmOrder))).toEqual(['7.0.0-2', '7.0.0-1', '7.0.0-0']);
    expect(versions(entriesBetween(commander, '5.1.0', '6.0.0', npmOrder))).toEqual(['6.0.0', '6.0.0-0']);
  });

  it('matches `v1.2.3` headings with `1.2.3` bounds and keeps the first of two entries of one version', () => {
    const entries = parseChangelog('## v1.2.0\nnew\n## v1.1.0\nfirst\n## 1.1.0\nduplicate\n## v1.0.0\nold\n## not-a-version 1.0\n', 'markdown');
    const between = entriesBetween(entries, 'v1.0.0', '1.2.0', npmOrder);
    expect(between.map((e) => [e.version, e.text])).toEqual([
      ['v1.2.0', 'new'],
      ['v1.1.0', 'first'],
    ]);
    expect(normalizeVersion(' v1.2.3')).toBe('1.2.3');
    expect(normalizeVersion('=1.2.3')).toBe('1.2.3');
    expect(normalizeVersion('version')).toBe('version');
  });

  it('leaves out an entry whose version the order cannot read', () => {
    const entries = parseChangelog('## 1.2.3.4\nfour parts\n## 1.2.3\nthree\n', 'markdown');
    expect(versions(entriesBetween(entries, '1.0.0', '2.0.0', npmOrder))).toEqual(['1.2.3']);
  });
});

describe('entriesBetween (PyPI, PEP 440 order)', () => {
  const news = parseChangelog(changelogFixture('towncrier-style-NEWS.rst'), 'rst');

  it('orders rc before the release and post after it', () => {
    expect(versions(entriesBetween(news, '2.0.0', '2.1.0', pypiOrder))).toEqual(['2.1.0', '2.1.0rc1']);
    expect(versions(entriesBetween(news, '1.9.0', '1.9.2', pypiOrder))).toEqual(['1.9.2', '1.9.0.post1']);
  });

  it('matches PEP 440 spellings of one version', () => {
    expect(versions(entriesBetween(news, '2.0', '2.1.0-rc.1', pypiOrder))).toEqual(['2.1.0rc1']);
    expect(versions(entriesBetween(news, '2.1.0c1', 'v2.1', pypiOrder))).toEqual(['2.1.0']);
  });
});

describe('changelogCoverage', () => {
  it('names the versions with no entry (commander: the left-out 7.0.0)', () => {
    const commander = parseChangelog(changelogFixture('commander-CHANGELOG.md'), 'markdown');
    const published = ['5.1.0', '6.0.0-0', '6.0.0', '6.1.0', '6.2.0', '6.2.1', '7.0.0-0', '7.0.0-1', '7.0.0-2', '7.0.0', '7.1.0', '7.2.0', '8.0.0'];
    expect(changelogCoverage(commander, published, '6.2.1', '7.2.0', npmOrder)).toEqual({
      versions: ['7.2.0', '7.1.0', '7.0.0', '7.0.0-2', '7.0.0-1', '7.0.0-0'],
      missing: ['7.0.0'],
    });
    expect(changelogCoverage(commander, published, null, '6.0.0', npmOrder)).toEqual({ versions: ['6.0.0', '6.0.0-0', '5.1.0'], missing: ['5.1.0'] });
  });

  it('names versions with no entry in PEP 440 order, matching normal forms', () => {
    const news = parseChangelog(changelogFixture('towncrier-style-NEWS.rst'), 'rst');
    const published = ['1.9.0', '1.9.0.post1', '1.9.1', '1.9.2', '2.0.0', '2.1.0rc1', '2.1.0', '2.1.1'];
    expect(changelogCoverage(news, published, '1.9.0', '2.1.0', pypiOrder)).toEqual({
      versions: ['2.1.0', '2.1.0rc1', '2.0.0', '1.9.2', '1.9.1', '1.9.0.post1'],
      missing: ['1.9.1'],
    });
    expect(changelogCoverage(news, ['2.1.0-rc.1', '2.0'], '1.9.2', '2.1.0', pypiOrder).missing).toEqual([]);
  });

  it('counts every version missing when the changelog has no entry the order can read', () => {
    expect(changelogCoverage([], ['1.0.0', '1.1.0'], null, '1.1.0', npmOrder)).toEqual({ versions: ['1.1.0', '1.0.0'], missing: ['1.1.0', '1.0.0'] });
  });
});
