/**
 * Go module versions: canonical semantic versions with a `v` (https://go.dev/ref/mod#versions),
 * pseudo-versions (`v0.0.0-20191109021931-daa7c04131f5`) and `+incompatible` included. Compared as
 * golang.org/x/mod/semver compares them, which is what minimal version selection uses.
 */

const SEMVER = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** Whether `v` is a version a go.mod may record (canonical, as `go mod tidy` writes them). */
export function isGoVersion(v: string): boolean {
  return v.length <= 256 && SEMVER.test(v);
}

function compareNumeric(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePrerelease(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return compareNumeric(x, y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return pa.length === pb.length ? 0 : pa.length < pb.length ? -1 : 1;
}

/** Semantic-version order (build metadata ignored); versions that are not valid sort lowest. */
export function compareGoVersions(a: string, b: string): number {
  const ma = SEMVER.exec(a);
  const mb = SEMVER.exec(b);
  if (ma === null || mb === null) return ma === mb ? 0 : ma === null ? -1 : 1;
  for (let i = 1; i <= 3; i++) {
    const c = compareNumeric(ma[i] ?? '', mb[i] ?? '');
    if (c !== 0) return c;
  }
  return comparePrerelease(ma[4], mb[4]);
}

/** Whether `v` lies in the closed interval [low, high] (a `retract` directive). */
export function inInterval(v: string, low: string, high: string): boolean {
  return compareGoVersions(low, v) <= 0 && compareGoVersions(v, high) <= 0;
}
