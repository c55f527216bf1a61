'use strict';
/**
 * What the CycloneDX validator calls at validation time: the string formats its schemas use and
 * the linear-time uniqueness check. CommonJS because Ajv's standalone validator code, which the
 * build writes beside this file (cyclonedx-validator.cjs), reaches its helpers with `require`.
 */
const { fullFormats } = require('ajv-formats/dist/formats');
const idnEmail = require('ajv-formats-draft2019/formats/idn-email');

/** Appends `value` as JSON with object keys sorted: equal texts exactly when the values are deeply equal. */
function canonicalInto(value, parts) {
  if (typeof value !== 'object' || value === null) {
    parts.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) parts.push(',');
      canonicalInto(value[i], parts);
    }
    parts.push(']');
  } else {
    // Keys sort by UTF-16 code units, as `<` compares them.
    const keys = Object.keys(value).sort();
    parts.push('{');
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) parts.push(',');
      parts.push(JSON.stringify(keys[i]), ':');
      canonicalInto(value[keys[i]], parts);
    }
    parts.push('}');
  }
}

function canonical(value) {
  // Most `uniqueItems` arrays hold strings: a quote and the raw text, which no other value's
  // canonical form starts with, spare escaping every one.
  if (typeof value === 'string') return `"${value}`;
  const parts = [];
  canonicalInto(value, parts);
  return parts.join('');
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
