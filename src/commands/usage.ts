/**
 * What every command shares, kept apart from the commands themselves so that `pkgscope --help`
 * and a usage error load nothing else.
 */

export interface CommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export class UsageError extends Error {}

export const TOKENS_USAGE = `usage:
  pkgscope tokens create --account NAME [--capabilities list,read,sbom] [--label TEXT] [--terms accepted|pending]
  pkgscope tokens list [--account NAME] [--json]
  pkgscope tokens revoke ID|PREFIX

Tokens live in the service's database: run these with the DATABASE_URL the service uses.`;

export const ADVISORIES_USAGE = `usage:
  pkgscope advisories import PATH…   load OSV advisories from zips (<Ecosystem>/all.zip) or folders of OSV JSON;
                                     each ecosystem found replaces what was loaded for it
  pkgscope advisories status [--json] what is loaded, per ecosystem

Advisories live in the service's database: run these with the DATABASE_URL the service uses.`;
