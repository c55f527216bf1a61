/**
 * Reading configuration from the environment: one variable at a time, every problem collected
 * (src/config.ts turns the whole environment into the typed Config with it), and the redaction
 * of secrets and URLs in what it reports.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads variables one by one, collecting every problem instead of stopping at the first. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  /** An unset or empty variable counts as absent (compose files often write `VAR=`). */
  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  private fail(name: string, expected: string, got: string): void {
    this.problems.push(`${name}: expected ${expected}, got ${JSON.stringify(got)}`);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      this.fail(name, `an integer from ${min} to ${max}`, value);
      return fallback;
    }
    return n;
  }

  optionalInteger(name: string, min: number, max: number): number | null {
    return this.raw(name) === undefined ? null : this.integer(name, 0, min, max);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.fail(name, 'true or false', value);
    return fallback;
  }

  string(name: string, fallback: string, pattern?: RegExp, expected?: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (pattern && !pattern.test(value)) {
      this.fail(name, expected ?? `a value matching ${pattern.source}`, value);
      return fallback;
    }
    return value;
  }

  optionalString(name: string, pattern: RegExp, expected: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    if (!pattern.test(value)) {
      this.fail(name, expected, redactSecret(value));
      return null;
    }
    return value;
  }

  url(name: string, fallback: string, protocols: readonly string[]): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!isUrl(value, protocols)) {
      this.fail(name, `a ${protocols.join(' or ')} URL`, redactUrl(value));
      return fallback;
    }
    return value;
  }

  optionalUrl(name: string, protocols: readonly string[]): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    if (!isUrl(value, protocols)) {
      this.fail(name, `a ${protocols.join(' or ')} URL`, value);
      return null;
    }
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, values: readonly T[]): T {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    const found = values.find((v) => v === value);
    if (found === undefined) {
      this.fail(name, `one of ${values.join(', ')}`, value);
      return fallback;
    }
    return found;
  }

  optionalOneOf<T extends string>(name: string, values: readonly T[]): T | null {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return null;
    const found = values.find((v) => v === value);
    if (found === undefined) this.fail(name, `one of ${values.join(', ')}`, value);
    return found ?? null;
  }

  /** Comma-separated URLs (no trailing slashes); empty when unset. */
  urlList(name: string, protocols: readonly string[]): string[] {
    const value = this.raw(name);
    if (value === undefined || value.trim() === '') return [];
    const urls = value.split(',').map((u) => u.trim()).filter((u) => u !== '');
    const bad = urls.find((u) => !isUrl(u, protocols));
    if (bad !== undefined) {
      this.fail(name, `comma-separated ${protocols.map((p) => p.replace(':', '')).join(' or ')} URLs`, redactUrl(bad));
      return [];
    }
    return urls.map((u) => u.replace(/\/+$/, ''));
  }

  /** A JSON object from known keys to base URLs; keys it omits keep their defaults. */
  urlMap<K extends string>(name: string, keys: readonly K[], defaults: Readonly<Record<K, string>>, protocols: readonly string[]): Record<K, string> {
    const value = this.raw(name);
    const result: Record<K, string> = { ...defaults };
    if (value === undefined) return result;
    const expected = `a JSON object mapping ${keys.join('/')} to ${protocols.map((p) => p.replace(':', '')).join(' or ')} URLs`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      this.fail(name, expected, value);
      return result;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.fail(name, expected, value);
      return result;
    }
    for (const [key, base] of Object.entries(parsed)) {
      const known = keys.find((k) => k === key);
      if (known === undefined || typeof base !== 'string' || !isUrl(base, protocols)) {
        this.fail(name, expected, value);
        return { ...defaults };
      }
      result[known] = base.replace(/\/+$/, '');
    }
    return result;
  }
}

function isUrl(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A URL without its password, for messages and logs. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable URL>';
  }
}

function redactSecret(value: string): string {
  return value.length <= 4 ? '***' : `${value.slice(0, 2)}***`;
}

/** Every invalid variable of the environment, named; thrown once by loadConfig. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
