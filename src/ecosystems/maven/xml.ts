import type { XMLParser } from 'fast-xml-parser';
import { lazily } from '../../model/lazy-require.js';
import { xmlParser } from '../../model/safe-parse.js';

/**
 * XML reading for POMs, maven-metadata.xml and Gradle's verification metadata, with
 * fast-xml-parser (entities off: a POM never needs them and they are the classic XML bomb). The
 * parser recurses on nesting, so the depth and the size are bounded before it runs, by one linear
 * scan that never recurses. The parser is lenient (its validator is deprecated): what it accepts
 * is read defensively, every shape checked before use.
 */

export const MAX_XML_BYTES = 8 * 1024 * 1024;
export const MAX_XML_DEPTH = 64;

export type JvmFileReason = 'malformed' | 'unsupported_version' | 'limit_exceeded' | 'unresolvable';

/** A JVM file this module cannot use; `build` turns it into a FileProblem naming the file. */
export class JvmFileError extends Error {
  constructor(
    readonly reason: JvmFileReason,
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'JvmFileError';
  }
}

export type XmlNode = { readonly [key: string]: XmlValue };
export type XmlValue = string | XmlNode | readonly XmlValue[];

/** The deepest element nesting of `text` (comments, CDATA and processing instructions skipped). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length) {
    if (text.startsWith('<!--', i)) i = text.indexOf('-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) i = text.indexOf(']]>', i + 9);
    else if (text[i + 1] === '?' || text[i + 1] === '!') i = text.indexOf('>', i + 1);
    else {
      const end = text.indexOf('>', i + 1);
      if (end === -1) break;
      if (text[i + 1] === '/') depth--;
      else if (text[end - 1] !== '/') {
        depth++;
        if (depth > max) max = depth;
      }
      i = end;
    }
    if (i === -1) break;
    i = text.indexOf('<', i + 1);
  }
  return max;
}

function parserFor(attributes: boolean, arrays: ReadonlySet<string>): XMLParser {
  return new (xmlParser().XMLParser)({
    ignoreAttributes: !attributes,
    attributeNamePrefix: '@',
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    removeNSPrefix: true,
    isArray: (name) => arrays.has(name),
  });
}

export interface XmlReader {
  /** The document element's content, named `root`; throws JvmFileError when it is not that XML. */
  read(text: string, root: string): XmlNode;
}

/** A reader whose elements named in `arrays` are always lists (a lone `<dependency>` too). */
export function xmlReader(arrays: readonly string[], attributes = false): XmlReader {
  // Made with the first document (readers are module constants: importing must not load the parser).
  const parser = lazily(() => parserFor(attributes, new Set(arrays)));
  return {
    read(text: string, root: string): XmlNode {
      if (text.length > MAX_XML_BYTES) throw new JvmFileError('limit_exceeded', `larger than ${MAX_XML_BYTES} bytes`);
      if (nestingDepth(text) > MAX_XML_DEPTH) throw new JvmFileError('limit_exceeded', `elements nested deeper than ${MAX_XML_DEPTH}`);
      let doc: unknown;
      try {
        doc = parser().parse(text);
      } catch (error) {
        throw new JvmFileError('malformed', `not well-formed XML: ${error instanceof Error ? error.message : String(error)}`);
      }
      const top = isNode(doc) ? doc[root] : undefined;
      if (top === undefined) throw new JvmFileError('malformed', `no <${root}> document element`);
      // `<project/>` parses as an empty string: an element with nothing in it.
      return isNode(top) ? top : {};
    },
  };
}

export function isNode(v: unknown): v is XmlNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The trimmed text of child `key`; null when absent, empty or not text. */
export function textOf(node: XmlNode | undefined, key: string): string | null {
  const v = node?.[key];
  if (typeof v === 'string') return v === '' ? null : v;
  // An element with attributes and text: fast-xml-parser keeps the text under `#text`.
  if (isNode(v) && typeof v['#text'] === 'string') return v['#text'] === '' ? null : v['#text'];
  return null;
}

export function childOf(node: XmlNode | undefined, key: string): XmlNode | undefined {
  const v = node?.[key];
  return isNode(v) ? v : undefined;
}

/** The element children `<outer><item/>…</outer>` as nodes (text-only items skipped). */
export function listOf(node: XmlNode | undefined, outer: string, item: string): XmlNode[] {
  const v = childOf(node, outer)?.[item];
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items.filter(isNode);
}

/** Text children `<outer><item>text</item>…</outer>`. */
export function textsOf(node: XmlNode | undefined, outer: string, item: string): string[] {
  const v = childOf(node, outer)?.[item];
  const items: readonly unknown[] = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items.filter((s): s is string => typeof s === 'string' && s !== '');
}
