/**
 * reStructuredText inline markup of a changelog entry rewritten as Markdown, line by line:
 * ``literal`` → `literal`; `text <url>`_ (and __) → [text](url); :role:`target` → `target`;
 * `interpreted` stays as code. Block structure (bullets, paragraphs, indentation) is the same in
 * both languages for what changelogs use, so it is kept as written.
 */

const LITERAL = /``([^`\n]{1,500}?)``/g;
const LINK = /`([^`<\n]{1,300}?)\s*<([^<>\s`]{1,1000})>`__?/g;
const ROLE = /:[A-Za-z][\w:+-]{0,30}:`([^`\n]{1,500})`/g;

export function rstToMarkdown(lines: readonly string[]): string {
  return lines
    .map((line) => line.replace(LINK, (_m, text: string, url: string) => `[${text.trim() || url}](${url})`).replace(ROLE, '`$1`').replace(LITERAL, '`$1`'))
    .join('\n');
}
