/**
 * Answers of a pure function of a string, kept for the requests that ask the same again (a client
 * paging or polling one target or selection). Bounded by count and cleared when full: on a hot
 * path, a whole clear now and then costs less than keeping an eviction order on every hit.
 */
export class BoundedMemo<V> {
  private readonly kept = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string, make: (key: string) => V): V {
    let value = this.kept.get(key);
    if (value === undefined) {
      value = make(key);
      if (this.kept.size >= this.max) this.kept.clear();
      this.kept.set(key, value);
    }
    return value;
  }
}
