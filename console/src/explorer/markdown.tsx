import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { ComponentChildren, JSX } from 'preact';
import { highlighted, highlightLanguage } from './highlight.js';

/**
 * Markdown rendered safely: parsed to a syntax tree (micromark, GFM) and turned into Preact
 * elements here, node by node. Raw HTML is shown as text, never parsed; links leave the console
 * only for http(s) and mailto addresses; images are not loaded (the page loads nothing from
 * elsewhere), their text and address are shown instead.
 */

function safeHref(url: string): string | null {
  try {
    const parsed = new URL(url);
    return ['https:', 'http:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

function children(nodes: readonly Nodes[]): ComponentChildren[] {
  return nodes.map((n, i) => render(n, i));
}

function render(node: Nodes, key: number): ComponentChildren {
  switch (node.type) {
    case 'root':
      return children(node.children);
    case 'paragraph':
      return <p key={key}>{children(node.children)}</p>;
    case 'heading': {
      const Tag = `h${Math.min(6, node.depth + 1)}` as 'h2';
      return <Tag key={key}>{children(node.children)}</Tag>;
    }
    case 'text':
      return node.value;
    case 'emphasis':
      return <em key={key}>{children(node.children)}</em>;
    case 'strong':
      return <strong key={key}>{children(node.children)}</strong>;
    case 'delete':
      return <del key={key}>{children(node.children)}</del>;
    case 'inlineCode':
      return <code key={key}>{node.value}</code>;
    case 'break':
      return <br key={key} />;
    case 'thematicBreak':
      return <hr key={key} />;
    case 'blockquote':
      return <blockquote key={key}>{children(node.children)}</blockquote>;
    case 'list':
      return node.ordered === true ? (
        <ol key={key} start={node.start ?? 1}>
          {children(node.children)}
        </ol>
      ) : (
        <ul key={key}>{children(node.children)}</ul>
      );
    case 'listItem':
      return (
        <li key={key}>
          {node.checked === true || node.checked === false ? <input type="checkbox" checked={node.checked} disabled aria-label={node.checked ? 'done' : 'not done'} /> : null}
          {node.children.length === 1 && node.children[0]?.type === 'paragraph' ? children(node.children[0].children) : children(node.children)}
        </li>
      );
    case 'code': {
      const language = highlightLanguage(node.lang ?? null, '');
      return (
        <pre key={key} class="code-block">
          <code class="hljs">{highlighted(node.value, language)}</code>
        </pre>
      );
    }
    case 'link': {
      const href = safeHref(node.url);
      return href === null ? (
        <span key={key} class="dead-link" title={node.url}>
          {children(node.children)}
        </span>
      ) : (
        <a key={key} href={href} rel="noreferrer noopener" target="_blank">
          {children(node.children)}
        </a>
      );
    }
    case 'image':
      return (
        <span key={key} class="image-placeholder" title={node.url}>
          [image: {node.alt ?? node.url}]
        </span>
      );
    case 'html':
      return (
        <code key={key} class="raw-html">
          {node.value}
        </code>
      );
    case 'table':
      return (
        <div key={key} class="table-wrap">
          <table>
            <tbody>
              {node.children.map((row, r) => (
                <tr key={r}>
                  {row.children.map((cell, c) => (r === 0 ? <th key={c}>{children(cell.children)}</th> : <td key={c}>{children(cell.children)}</td>))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case 'footnoteReference':
      return <sup key={key}>[{node.label ?? node.identifier}]</sup>;
    case 'footnoteDefinition':
      return (
        <div key={key} class="footnote">
          [{node.label ?? node.identifier}] {children(node.children)}
        </div>
      );
    case 'linkReference':
    case 'imageReference':
    case 'definition':
    case 'yaml':
    case 'tableRow':
    case 'tableCell':
      return 'children' in node ? <span key={key}>{children(node.children)}</span> : null;
    default:
      return null;
  }
}

export function Markdown({ text }: { text: string }): JSX.Element {
  const tree: Root = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  return <div class="markdown">{render(tree, 0)}</div>;
}
