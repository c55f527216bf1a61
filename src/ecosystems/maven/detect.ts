import type { Claim } from '../types.js';
import type { InputFile } from '../../model/types.js';

/**
 * Maven's and Gradle's files. By name: `pom.xml`, `gradle.lockfile` (and `settings-gradle.lockfile`,
 * the settings' buildscript), `gradle/verification-metadata.xml`, `gradle/*.versions.toml`,
 * `build.gradle(.kts)`, `settings.gradle(.kts)`. By content (first 4 KiB): a renamed POM
 * (`*.pom`, `*.xml` whose `<project>` is in Maven's POM namespace or states modelVersion 4.0.0)
 * and a per-configuration lockfile of Gradle before 6.0 (`gradle/dependency-locks/*.lockfile`),
 * which opens with Gradle's own header line. A NuGet `<Project>` is never a POM: XML is case-sensitive.
 */
export type JvmKind = 'maven-pom' | 'gradle-lockfile' | 'gradle-verification' | 'gradle-catalog' | 'gradle-build' | 'gradle-settings';

const SNIFF_BYTES = 4096;
const LOCK_HEADER = '# This is a Gradle generated file for dependency locking.';

function claimOf(kind: JvmKind, by: Claim['by']): Claim {
  const role: Claim['role'] = kind === 'maven-pom' || kind === 'gradle-build' || kind === 'gradle-catalog' ? 'manifest' : kind === 'gradle-lockfile' ? 'lockfile' : 'auxiliary';
  return { kind, role, by };
}

export function claimJvmFile(file: InputFile): Claim | null {
  const path = file.path.replace(/\\/g, '/');
  const base = path.slice(path.lastIndexOf('/') + 1);
  const inGradleDir = path === `gradle/${base}` || path.endsWith(`/gradle/${base}`);
  if (base === 'pom.xml') return claimOf('maven-pom', 'name');
  if (base === 'gradle.lockfile' || base === 'settings-gradle.lockfile') return claimOf('gradle-lockfile', 'name');
  if (base === 'verification-metadata.xml' && inGradleDir) return claimOf('gradle-verification', 'name');
  if (base.endsWith('.versions.toml') && inGradleDir) return claimOf('gradle-catalog', 'name');
  if (base === 'build.gradle' || base === 'build.gradle.kts') return claimOf('gradle-build', 'name');
  if (base === 'settings.gradle' || base === 'settings.gradle.kts') return claimOf('gradle-settings', 'name');
  const head = file.content.slice(0, SNIFF_BYTES);
  if (base.endsWith('.lockfile') && head.startsWith(LOCK_HEADER)) return claimOf('gradle-lockfile', 'content');
  if ((base.endsWith('.pom') || base.endsWith('.xml')) && /<project[\s>]/.test(head)) {
    if (head.includes('http://maven.apache.org/POM/4.0.0') || head.includes('<modelVersion>4.0.0</modelVersion>')) return claimOf('maven-pom', 'content');
  }
  return null;
}
