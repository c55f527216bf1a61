/**
 * Remote answers that mean "no such repository, ref or object" (or none this caller may read,
 * which hosts word the same way so as not to reveal private repositories). git exits 128 for
 * these and for network or server trouble alike, so its stderr (LC_ALL=C) is the only witness.
 */
const REMOTE_SAYS_MISSING = [
  /does not appear to be a git repository/i,
  /repository '.*' not found/i,
  /Repository not found/i,
  /returned error: (401|403|404|410)\b/i,
  /Authentication failed/i,
  /could not read (Username|Password)/i,
  /not our ref/i,
  /(couldn't|could not) find remote ref/i,
  /unadvertised object/i,
  /no such (remote )?ref/i,
];

/** How a failed git command failed: the remote said the thing is missing, it did not answer in time, or it failed or could not be reached. */
export function remoteFailure(error: { readonly exitCode: number | null; readonly stderr: string }): 'missing' | 'timeout' | 'unavailable' {
  if (error.exitCode === null) return 'timeout';
  return REMOTE_SAYS_MISSING.some((pattern) => pattern.test(error.stderr)) ? 'missing' : 'unavailable';
}
