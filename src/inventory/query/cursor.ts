import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque continuation cursors: keyset position (the last path served), the inventory it pages
 * through and the selection it belongs to, signed with HMAC-SHA256. Any altered byte, or a cursor
 * from another selection, is refused.
 */
export interface CursorState {
  /** selectionKey() of the request that produced it. */
  readonly selection: string;
  /** The inventory being paged, so every page comes from the same snapshot. */
  readonly inventory: string;
  /** Keyset position of the last entry of the previous page. */
  readonly after: string;
  /** The lister's evidence of page one (ServedView.pin), so later pages repeat it. */
  readonly pin: string | null;
}

export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private sign(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
  }

  encode(state: CursorState): string {
    const fields = [1, state.selection, state.inventory, state.after, ...(state.pin === null ? [] : [state.pin])];
    const payload = Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
    return `${payload}.${this.sign(payload).toString('base64url')}`;
  }

  /** The state, or null for a cursor that was not made here or was altered. */
  decode(cursor: string): CursorState | null {
    const dot = cursor.indexOf('.');
    if (dot <= 0) return null;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const expected = this.sign(payload);
    // base64url decoding ignores stray characters: the re-encoding must match byte for byte.
    if (given.length !== expected.length || given.toString('base64url') !== cursor.slice(dot + 1) || !timingSafeEqual(given, expected)) {
      return null;
    }
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(parsed) || parsed[0] !== 1 || (parsed.length !== 4 && parsed.length !== 5)) return null;
      const [, selection, inventory, after, pin = null] = parsed as unknown[];
      if (typeof selection !== 'string' || typeof inventory !== 'string' || typeof after !== 'string') return null;
      if (pin !== null && typeof pin !== 'string') return null;
      return { selection, inventory, after, pin };
    } catch {
      return null;
    }
  }
}
