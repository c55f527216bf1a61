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

/**
 * A cheap stand-in for an object's canonical form: deeply equal objects get the same
 * fingerprint, so objects with different fingerprints are different; only those sharing one need
 * comparing in full. An object with a string `bom-ref` or `ref` (components, services,
 * dependencies…) is fingerprinted by it alone: two objects that differ there are different, and
 * within a document those are unique. Any other object by its key count and its primitive-valued
 * members, in key order.
 */
function fingerprint(object) {
  const ref = object['bom-ref'] ?? object.ref;
  if (typeof ref === 'string') return `\u0002${ref}`;
  const keys = Object.keys(object);
  const parts = [];
  for (const key of keys) {
    const value = object[key];
    if (typeof value !== 'object' || value === null) parts.push(`${key}\u0000${typeof value}${String(value)}`);
  }
  parts.sort();
  return `${keys.length}\u0001${parts.join('\u0001')}`;
}

/**
 * Whether no two items are deeply equal (the schema's `uniqueItems`), in linear time. Primitive
 * items compare by canonical form; objects (components, references, hashes…) first by
 * fingerprint, and by canonical form only within a fingerprint they share: the canonical form of
 * every component, nested arrays included, cost most of a document's validation.
 */
function allUnique(items) {
  if (items.length < 2) return true;
  const primitives = new Set();
  const objects = new Map();
  for (const item of items) {
    if (typeof item !== 'object' || item === null) {
      const key = canonical(item);
      if (primitives.has(key)) return false;
      primitives.add(key);
      continue;
    }
    const key = Array.isArray(item) ? `[${item.length}` : fingerprint(item);
    const same = objects.get(key);
    if (same === undefined) objects.set(key, [item]);
    else same.push(item);
  }
  for (const group of objects.values()) {
    if (group.length < 2) continue;
    const seen = new Set();
    for (const item of group) {
      const key = canonical(item);
      if (seen.has(key)) return false;
      seen.add(key);
    }
  }
  return true;
}

const ajvUcs2length = require('ajv/dist/runtime/ucs2length').default;

/** A surrogate code unit: only a string holding one has fewer code points than code units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Ajv's `ucs2length` (a string's length in code points, which `maxLength` counts), answered by
 * `length` for a string without surrogates, nearly every one: one native scan where Ajv's loop
 * visited each code unit in JavaScript. The build points the standalone code here.
 */
function ucs2length(text) {
  return SURROGATE.test(text) ? ajvUcs2length(text) : text.length;
}

/** The schema's `hash-content` pattern: hex digits, of one of five lengths. */
const HASH_CONTENT = '^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$';
const HEX = /^[a-fA-F0-9]*$/;
const HASH_LENGTHS = new Set([32, 40, 64, 96, 128]);

/**
 * The validator's regular expressions (Ajv's `code.regExp`): `new RegExp` but for the hash
 * pattern, which every component's hashes meet and whose alternation rescanned a 128-digit hash
 * for each shorter length first; it is decided by the length and one scan instead.
 */
function regExp(pattern, flags) {
  if (pattern !== HASH_CONTENT) return new RegExp(pattern, flags);
  return { test: isHashContent, toString: () => `/${pattern}/${flags}` };
}

/** Whether a text meets the schema's `hash-content` pattern: hex digits, of one of five lengths. */
function isHashContent(text) {
  return HASH_LENGTHS.has(text.length) && HEX.test(text);
}

/**
 * The formats of the CycloneDX library's validator: ajv-formats' full set, draft 2019's
 * `idn-email`, and `iri-reference` accepted as the library accepts it.
 */
const formats = { ...fullFormats, 'idn-email': idnEmail, 'iri-reference': true };

module.exports = { allUnique, formats, isHashContent, regExp, ucs2length };
