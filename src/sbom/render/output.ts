import { AnalysisError, MAX_OUTPUT_BYTES } from '../../model/types.js';

/**
 * A document being written, counted in UTF-8 bytes as it grows: exceeding the limit fails the
 * render at that moment (output_too_large) instead of after the whole document exists.
 */
export class BoundedOutput {
  private readonly chunks: string[] = [];
  private bytes = 0;

  constructor(readonly maxBytes: number = MAX_OUTPUT_BYTES) {}

  write(text: string): void {
    this.bytes += Buffer.byteLength(text, 'utf8');
    if (this.bytes > this.maxBytes) {
      throw new AnalysisError('output_too_large', `document exceeds ${this.maxBytes} bytes`);
    }
    this.chunks.push(text);
  }

  line(text = ''): void {
    this.write(`${text}\n`);
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** The document; joined once, its pieces then let go (a large one is held once, not twice). */
  toString(): string {
    if (this.chunks.length !== 1) this.chunks.splice(0, this.chunks.length, this.chunks.join(''));
    return this.chunks[0] ?? '';
  }
}

/** Items of a list written by one JSON.stringify. */
const LIST_CHUNK = 64;

/**
 * JSON.stringify, streamed into a BoundedOutput: the document's members are written one at a
 * time and its lists 64 items at a time, so a huge component list fails within a chunk of
 * crossing the limit. A chunk is one JSON.stringify of those items: writing each item (or each
 * member of an item) apart cost more in calls and in counting many short strings than the
 * stringifying itself.
 */
export function writeJson(out: BoundedOutput, value: unknown, depth = 0): void {
  // A value with its own JSON form (a Date) is written as JSON.stringify writes it.
  if (depth >= 2 || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    // JSON.stringify answers undefined for undefined and functions, whatever its declared type.
    const text = JSON.stringify(value) as string | undefined;
    out.write(text === undefined ? 'null' : text);
    return;
  }
  if (Array.isArray(value)) {
    out.write('[');
    for (let start = 0; start < value.length; start += LIST_CHUNK) {
      // A chunk's text without its brackets; undefined and functions are null in it, as in any array.
      const chunk = JSON.stringify(value.slice(start, start + LIST_CHUNK));
      out.write(start === 0 ? chunk.slice(1, -1) : `,${chunk.slice(1, -1)}`);
    }
    out.write(']');
    return;
  }
  out.write('{');
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function') continue;
    out.write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    writeJson(out, member, depth + 1);
  }
  out.write('}');
}
