import type { Element, ElementContent, Root } from 'hast';
import { common, createLowlight } from 'lowlight';
import type { ComponentChildren } from 'preact';

const lowlight = createLowlight(common);

/** Above this many characters a file is shown plain: highlighting would cost more than it helps. */
const HIGHLIGHT_LIMIT = 400_000;

/** Language ids as the service names them (linguist, lower-case, dashes) → highlight.js names. */
const ALIASES: Readonly<Record<string, string>> = {
  tsx: 'typescript',
  jsx: 'javascript',
  'c++': 'cpp',
  'c#': 'csharp',
  html: 'xml',
  svg: 'xml',
  vue: 'xml',
  toml: 'ini',
  'objective-c': 'objectivec',
  'json with comments': 'json',
  shell: 'bash',
  json5: 'json',
  'git-config': 'ini',
  dockerfile: 'bash',
  'shell-session': 'bash',
  'vim-script': 'plaintext',
};

export function highlightLanguage(language: string | null, path: string): string | null {
  const id = language?.toLowerCase() ?? '';
  const extension = path.includes('.') ? (path.split('.').pop()?.toLowerCase() ?? '') : '';
  const candidates = [ALIASES[id] ?? '', id, ALIASES[extension] ?? '', extension];
  for (const name of candidates) if (name !== '' && lowlight.registered(name)) return name;
  return null;
}

function renderChildren(nodes: readonly ElementContent[]): ComponentChildren[] {
  return nodes.map((node, i) => renderNode(node, i));
}

function renderNode(node: ElementContent, key: number): ComponentChildren {
  if (node.type === 'text') return node.value;
  if (node.type === 'comment') return null;
  return renderElement(node, key);
}

/** Only the spans lowlight makes, with their class names: the tree is rendered, never parsed as HTML. */
function renderElement(element: Element, key: number): ComponentChildren {
  const className = element.properties['className'];
  const classes = Array.isArray(className) ? className.filter((c): c is string => typeof c === 'string').join(' ') : '';
  return (
    <span key={key} class={classes}>
      {renderChildren(element.children)}
    </span>
  );
}

/** Preact children for `text` highlighted as `language` (plain text when unknown or too long). */
export function highlighted(text: string, language: string | null): ComponentChildren {
  if (language === null || text.length > HIGHLIGHT_LIMIT) return text;
  let tree: Root;
  try {
    tree = lowlight.highlight(language, text);
  } catch {
    return text;
  }
  return tree.children.map((node, i) => (node.type === 'doctype' ? null : renderNode(node, i)));
}
