/**
 * OSV's evaluation of one `affected[]` entry for one version, as the schema's pseudo-code gives it
 * (https://ossf.github.io/osv-schema/#evaluation): listed in `versions`, or inside a range — events
 * sorted by the range's order (`introduced: "0"` first), `introduced` opens, `fixed` closes
 * (exclusive), `last_affected` closes after itself (inclusive), and the version must be below one
 * of the `limit` events when there are any (`*` is infinity). Events the order cannot read are
 * left out of the timeline. `GIT` ranges are not versions: see ./git.ts.
 *
 * An evaluator lives for one match run: each range's sorted timeline and each entry's sorted
 * `versions` are made once however many occurrences of the package are evaluated.
 */
import type { OsvAffected, OsvEvent, OsvRange } from '../types.js';
import { VersionOrders, type VersionComparator } from '../versions/index.js';

export interface AffectedVerdict {
  readonly affected: boolean;
  /** The nearest fixed versions above the version, in the ranges that hold it (sorted, unique). */
  readonly fixed: readonly string[];
}

const NOT_AFFECTED: AffectedVerdict = { affected: false, fixed: [] };

type Kind = 'introduced' | 'fixed' | 'last_affected' | 'limit';

interface TimedEvent {
  readonly kind: Kind;
  readonly value: string;
  /** `introduced: "0"`: before every version. */
  readonly zero: boolean;
}

interface Timeline {
  readonly order: VersionComparator;
  readonly events: readonly TimedEvent[];
  readonly limits: readonly string[];
}

interface Listed {
  readonly order: VersionComparator | null;
  readonly raw: ReadonlySet<string>;
  /** The listed versions the order reads, in its order (binary-searched). */
  readonly sorted: readonly string[];
}

function eventOf(event: OsvEvent): TimedEvent | null {
  if (event.introduced !== undefined) return { kind: 'introduced', value: event.introduced, zero: event.introduced === '0' };
  if (event.fixed !== undefined) return { kind: 'fixed', value: event.fixed, zero: false };
  if (event.last_affected !== undefined) return { kind: 'last_affected', value: event.last_affected, zero: false };
  if (event.limit !== undefined) return { kind: 'limit', value: event.limit, zero: false };
  return null;
}

export class AffectedEvaluator {
  private readonly timelines = new WeakMap<OsvRange, Timeline>();
  private readonly listed = new WeakMap<OsvAffected, Listed>();

  constructor(readonly orders: VersionOrders = new VersionOrders()) {}

  /** The range's events in its order (limits apart); `introduced: "0"` first. */
  private timeline(range: OsvRange, order: VersionComparator): Timeline {
    const held = this.timelines.get(range);
    if (held !== undefined && held.order === order) return held;
    const events: TimedEvent[] = [];
    const limits: string[] = [];
    for (const raw of range.events) {
      const e = eventOf(raw);
      if (e === null) continue;
      if (e.kind === 'limit') limits.push(e.value);
      else if (e.zero || order.valid(e.value)) events.push(e);
    }
    // Array.prototype.sort is stable: equal versions keep the record's order.
    events.sort((a, b) => (a.zero ? (b.zero ? 0 : -1) : b.zero ? 1 : (order.compare(a.value, b.value) ?? 0)));
    const made = { order, events, limits };
    this.timelines.set(range, made);
    return made;
  }

  /** Whether `version` lies in `range`, and the first `fixed` above it there. */
  inRange(version: string, range: OsvRange, order: VersionComparator): { affected: boolean; fixed: string | null } {
    if (!order.valid(version)) return { affected: false, fixed: null };
    const { events, limits } = this.timeline(range, order);
    if (limits.length > 0 && !limits.some((limit) => limit.includes('*') || (order.compare(version, limit) ?? 0) < 0)) return { affected: false, fixed: null };
    let vulnerable = false;
    let fix: string | null = null;
    for (const e of events) {
      const c = e.zero ? 1 : (order.compare(version, e.value) ?? -1);
      if (e.kind === 'introduced' && c >= 0) vulnerable = true;
      else if (e.kind === 'fixed' && c >= 0) vulnerable = false;
      else if (e.kind === 'last_affected' && c > 0) vulnerable = false;
      // The first fixed above the version, in the order: the nearest fix of the interval holding it.
      if (fix === null && e.kind === 'fixed' && c < 0) fix = e.value;
    }
    return vulnerable ? { affected: true, fixed: fix } : { affected: false, fixed: null };
  }

  /** Whether `version` is in the entry's `versions`: as written, or equal by the ecosystem's order (PEP 440's `2.10` is `2.10.0`). */
  private isListed(version: string, entry: OsvAffected, order: VersionComparator | null): boolean {
    const versions = entry.versions ?? [];
    if (versions.length === 0) return false;
    let held = this.listed.get(entry);
    if (held === undefined || held.order !== order) {
      const sorted = order === null ? [] : versions.filter((v) => order.valid(v)).sort((a, b) => order.compare(a, b) ?? 0);
      held = { order, raw: new Set(versions), sorted };
      this.listed.set(entry, held);
    }
    if (held.raw.has(version)) return true;
    if (order === null || !order.valid(version)) return false;
    let low = 0;
    let high = held.sorted.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const c = order.compare(held.sorted[mid] ?? '', version) ?? 0;
      if (c === 0) return true;
      if (c < 0) low = mid + 1;
      else high = mid - 1;
    }
    return false;
  }

  /** The lowest `fixed` above `version` in any range of the entry (for a version matched by `versions` alone). */
  private nearestFix(version: string, entry: OsvAffected, ecosystem: string): string | null {
    let best: string | null = null;
    let bestOrder: VersionComparator | null = null;
    for (const range of entry.ranges ?? []) {
      const order = this.orders.for(ecosystem, range.type);
      if (order === null) continue;
      for (const e of range.events) {
        if (e.fixed === undefined || (order.compare(e.fixed, version) ?? 0) <= 0) continue;
        if (best === null || bestOrder !== order || (order.compare(e.fixed, best) ?? 0) < 0) {
          best = e.fixed;
          bestOrder = order;
        }
      }
    }
    return best;
  }

  /** The verdict of one `affected[]` entry (already known to name the package) for `version`. */
  evaluate(version: string, entry: OsvAffected, ecosystem: string): AffectedVerdict {
    let fixes: string[] | null = null;
    let affected = false;
    let fixOrder: VersionComparator | null = null;
    for (const range of entry.ranges ?? []) {
      const order = this.orders.for(ecosystem, range.type);
      if (order === null) continue;
      const hit = this.inRange(version, range, order);
      if (!hit.affected) continue;
      affected = true;
      if (hit.fixed !== null) {
        fixes ??= [];
        if (!fixes.includes(hit.fixed)) fixes.push(hit.fixed);
        fixOrder ??= order;
      }
    }
    if (!affected) {
      if (!this.isListed(version, entry, this.orders.for(ecosystem, 'ECOSYSTEM'))) return NOT_AFFECTED;
      const fix = this.nearestFix(version, entry, ecosystem);
      return { affected: true, fixed: fix === null ? [] : [fix] };
    }
    if (fixes === null) return { affected, fixed: [] };
    const order = fixOrder;
    if (order !== null && fixes.length > 1) fixes.sort((a, b) => order.compare(a, b) ?? (a < b ? -1 : 1));
    return { affected, fixed: fixes };
  }
}
