import { AnalysisError, MAX_OUTPUT_BYTES } from '../types.js';

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

  toString(): string {
    return this.chunks.join('');
  }
}

/**
 * JSON.stringify, streamed into a BoundedOutput: the document's members and the items of its
 * lists are written one at a time, so a huge component list fails as soon as it crosses the
 * limit. Each item (a component, a dependency, a package) is one JSON.stringify: writing its
 * members one by one too cost a quarter of a small analysis in counting many short strings.
 */
export function writeJson(out: BoundedOutput, value: unknown, depth = 0): void {
  if (depth >= 2 || value === null || typeof value !== 'object') {
    // JSON.stringify answers undefined for undefined and functions, whatever its declared type.
    const text = JSON.stringify(value) as string | undefined;
    out.write(text === undefined ? 'null' : text);
    return;
  }
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item: unknown, index) => {
      if (index > 0) out.write(',');
      writeJson(out, item === undefined ? null : item, depth + 1);
    });
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
