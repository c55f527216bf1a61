import { JvmFileError } from './xml.js';

/**
 * A Gradle dependency lockfile (https://docs.gradle.org/current/userguide/dependency_locking.html):
 * one line per module version, `group:artifact:version=conf1,conf2`, sorted; `empty=conf,…` names
 * the locked configurations that resolved to nothing; `#` lines are comments. Gradle before 6.0
 * wrote one file per configuration (`gradle/dependency-locks/<conf>.lockfile`) with bare
 * `group:artifact:version` lines: the configuration is then the file's name.
 */

export interface LockedModule {
  readonly group: string;
  readonly artifact: string;
  readonly version: string;
  readonly configurations: readonly string[];
  readonly line: number;
}

export interface GradleLock {
  readonly modules: readonly LockedModule[];
  /** Configurations locked with nothing in them. */
  readonly empty: readonly string[];
}

const MAX_LINES = 200_000;

/** `fileConfiguration`: the configuration of a per-configuration lockfile (its base name), else null. */
export function parseGradleLock(text: string, fileConfiguration: string | null = null): GradleLock {
  const modules: LockedModule[] = [];
  const empty: string[] = [];
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new JvmFileError('limit_exceeded', `more than ${MAX_LINES} lines`);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const coordinate = eq === -1 ? line : line.slice(0, eq);
    const confs = eq === -1 ? [] : line.slice(eq + 1).split(',').map((c) => c.trim()).filter((c) => c !== '');
    if (coordinate === 'empty') {
      empty.push(...confs);
      continue;
    }
    const parts = coordinate.split(':');
    if (parts.length !== 3 || parts.some((p) => p === '' || /\s/.test(p))) {
      throw new JvmFileError('malformed', `line ${i + 1} is not group:artifact:version=configurations`, i + 1);
    }
    const [group = '', artifact = '', version = ''] = parts;
    const configurations = eq === -1 ? (fileConfiguration === null ? [] : [fileConfiguration]) : confs;
    modules.push({ group, artifact, version, configurations, line: i + 1 });
  }
  return { modules, empty };
}

export type ConfigurationScope = 'required' | 'dev' | 'tool';

/**
 * What a configuration says of the modules in it. The main source set's classpaths (and the
 * pre-Gradle-7 `compile`/`runtime`) ship: required; so do an Android release variant's
 * (`releaseRuntimeClasspath`, `freeReleaseCompileClasspath`). Test source sets' (`test…`,
 * `…Test…`: `integrationTestRuntimeClasspath`, `debugUnitTestCompileClasspath`) and debug variants'
 * do not: dev. Everything else resolves for a tool or another source set (annotation processors,
 * checkstyle, jmh, xjc, antlr, the buildscript `classpath`…): what ships is unknown, so no scope is
 * stated (the component says which configurations hold it).
 */
export function configurationScope(conf: string): ConfigurationScope {
  if (['compileClasspath', 'runtimeClasspath', 'compile', 'runtime', 'default', 'apiElements', 'runtimeElements'].includes(conf)) return 'required';
  if (conf.startsWith('test') || /[a-z]Test[A-Z]/.test(conf) || /Test(Compile|Runtime)Classpath$/.test(conf)) return 'dev';
  const variant = /^(\w+)(Compile|Runtime)Classpath$/.exec(conf)?.[1];
  if (variant !== undefined && /(^r|R)elease/.test(variant)) return 'required';
  if (variant !== undefined && /(^d|D)ebug/.test(variant)) return 'dev';
  return 'tool';
}

/** The strongest scope of a module's configurations: required, then dev, then tool. */
export function strongestScope(configurations: readonly string[]): ConfigurationScope {
  let best: ConfigurationScope = 'tool';
  for (const c of configurations) {
    const s = configurationScope(c);
    if (s === 'required') return s;
    if (s === 'dev') best = 'dev';
  }
  return best;
}
