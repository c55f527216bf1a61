/**
 * The platform a request says the project installs on. Only what changes a dependency set is
 * here: Python's PEP 508 marker variables, whose documented default is CPython 3.12 on Linux
 * x86_64 (see `ecosystems/pypi/markers.ts`). Lockfiles are not affected (every recorded entry is a
 * component whatever its markers); the resolution of manifests without a lockfile is.
 */

/** The PEP 508 marker variables a request may set (`extra` is per requirement, never global). */
export const PYTHON_ENVIRONMENT_KEYS = [
  'python_version',
  'python_full_version',
  'sys_platform',
  'platform_system',
  'platform_machine',
  'platform_python_implementation',
  'implementation_name',
  'implementation_version',
  'os_name',
  'platform_release',
] as const;
export type PythonEnvironmentKey = (typeof PYTHON_ENVIRONMENT_KEYS)[number];

export type PythonEnvironment = Partial<Readonly<Record<PythonEnvironmentKey, string>>>;

export interface AnalysisEnvironment {
  readonly python?: PythonEnvironment;
}

/** A marker value: what `platform`/`sys` report, short and printable. */
export const ENVIRONMENT_VALUE = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

export type EnvironmentCheck = { readonly ok: true; readonly environment: AnalysisEnvironment } | { readonly ok: false; readonly detail: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a request's `environment` (already JSON-parsed): an object with an optional `python`
 * object of marker variables. Every rule broken is named, so a 400 says which key is at fault.
 */
export function checkEnvironment(value: unknown): EnvironmentCheck {
  if (!isRecord(value)) return { ok: false, detail: 'environment must be an object.' };
  for (const key of Object.keys(value)) if (key !== 'python') return { ok: false, detail: `environment.${key} is not a known environment (known: python).` };
  const python = value['python'];
  if (python === undefined) return { ok: true, environment: {} };
  if (!isRecord(python)) return { ok: false, detail: 'environment.python must be an object of PEP 508 marker variables.' };
  const out: Partial<Record<PythonEnvironmentKey, string>> = {};
  for (const [key, v] of Object.entries(python)) {
    if (!(PYTHON_ENVIRONMENT_KEYS as readonly string[]).includes(key)) {
      return { ok: false, detail: `environment.python.${key} is not a PEP 508 marker variable (known: ${PYTHON_ENVIRONMENT_KEYS.join(', ')}).` };
    }
    if (typeof v !== 'string' || !ENVIRONMENT_VALUE.test(v)) {
      return { ok: false, detail: `environment.python.${key} must be a string of letters, digits, '.', '_', '+' or '-' (at most 64).` };
    }
    out[key as PythonEnvironmentKey] = v;
  }
  return { ok: true, environment: Object.keys(out).length === 0 ? {} : { python: out } };
}

/** A stable text of an environment (keys sorted) for request identity; empty when nothing is set. */
export function environmentIdentity(environment: AnalysisEnvironment | null | undefined): string {
  const python = environment?.python;
  if (python === undefined) return '';
  return JSON.stringify(Object.entries(python).sort(([a], [b]) => a.localeCompare(b)));
}
