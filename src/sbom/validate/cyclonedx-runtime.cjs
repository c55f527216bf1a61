'use strict';
/**
 * What the CycloneDX validator calls at validation time: the string formats its schemas use and
 * the linear-time uniqueness check. CommonJS because Ajv's standalone validator code, which the
 * build writes beside this file (cyclonedx-validator.cjs), reaches its helpers with `require`.
 */
const { fullFormats } = require('ajv-formats/dist/formats');
const idnEmail = require('ajv-formats-draft2019/formats/idn-email');

/** JSON with object keys sorted: equal strings exactly when the values are deeply equal. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether no two items are deeply equal (the schema's `uniqueItems`), in linear time. */
function allUnique(items) {
  const seen = new Set();
  for (const item of items) {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * The formats of the CycloneDX library's validator: ajv-formats' full set, draft 2019's
 * `idn-email`, and `iri-reference` accepted as the library accepts it.
 */
const formats = { ...fullFormats, 'idn-email': idnEmail, 'iri-reference': true };

module.exports = { allUnique, formats };
