import { parseTarget, type TargetParse } from '../../inventory/targets.js';
import { BoundedMemo } from '../../model/bounded-memo.js';

const MAX_KEPT_CHARS = 512;

/**
 * parseTarget() with recent answers kept: a client paging, polling or reading files of one
 * target sends the same text each time, and parsing validates its package name or host each
 * time. Parses are pure and never changed once made.
 */
export class TargetMemo {
  private readonly parsed: BoundedMemo<TargetParse>;

  constructor(max = 1_000) {
    this.parsed = new BoundedMemo(max);
  }

  parse(text: string): TargetParse {
    // Only texts of a usual length are kept: a body may hold megabytes of target.
    return text.length > MAX_KEPT_CHARS ? parseTarget(text) : this.parsed.get(text, parseTarget);
  }
}
