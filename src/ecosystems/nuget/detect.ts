import type { InputFile } from '../../model/types.js';
import type { Claim } from '../types.js';

/**
 * NuGet's and MSBuild's own names: `packages.lock.json`, `packages.config`, `*.deps.json`, project
 * files (`*.csproj`, `*.fsproj`, `*.vbproj`), `Directory.Packages.props` and `Directory.Build.props`.
 * (npm's lockfile is `package-lock.json`: never this one.)
 */
export function claimNuget(file: InputFile): Claim | null {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const lower = name.toLowerCase();
  if (lower === 'packages.lock.json') return { kind: 'nuget-lock', role: 'lockfile', by: 'name' };
  if (lower === 'packages.config') return { kind: 'packages-config', role: 'lockfile', by: 'name' };
  if (lower.endsWith('.deps.json')) return { kind: 'deps-json', role: 'lockfile', by: 'name' };
  if (/\.(cs|fs|vb)proj$/.test(lower)) return { kind: 'msbuild-project', role: 'manifest', by: 'name' };
  if (lower === 'directory.packages.props') return { kind: 'packages-props', role: 'auxiliary', by: 'name' };
  if (lower === 'directory.build.props') return { kind: 'build-props', role: 'auxiliary', by: 'name' };
  return null;
}
