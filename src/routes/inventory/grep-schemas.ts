import { Type, type Static, type TSchema } from 'typebox';
import { ListIdentity } from './schemas.js';

/** `POST /v1/grep`: its request and response, in the style of the List operation. */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const GrepRequestBody = Type.Object(
  {
    target: Type.String({ minLength: 1, description: 'Package, repository or site target, as for list.' }),
    pattern: Type.String({ minLength: 1, maxLength: 1000, description: 'Exact text, or an RE2 regular expression with `regex`. Matched line by line.' }),
    regex: Type.Optional(Type.Boolean({ default: false, description: 'Read `pattern` as an RE2 regular expression (linear time; no backreferences or lookaround).' })),
    case_sensitive: Type.Optional(Type.Boolean({ default: true })),
    paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: 'List selectors (directories are searched recursively); default the whole target.' })),
    file_types: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    languages: Type.Optional(Type.Array(Type.String(), { maxItems: 64, description: 'Language ids as GET /v1/languages lists them.' })),
    intents: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    context_lines: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 0, description: 'Lines shown before and after each match.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Matches per page.' })),
    after: Type.Optional(Type.String({ description: 'next_cursor of the previous page (bound to target, pattern and selection).' })),
    wait_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 210_000, description: 'Wait this long for a target being prepared.' })),
  },
  { additionalProperties: false },
);
export type GrepRequestBodyType = Static<typeof GrepRequestBody>;

const ContextLine = Type.Object({ line_number: Type.Integer({ minimum: 1 }), text: Type.String() });

export const GrepMatch = Type.Object({
  path: Type.String(),
  line_number: Type.Integer({ minimum: 1 }),
  column_start: Type.Integer({ minimum: 1, description: '1-based, in UTF-16 code units.' }),
  column_end: Type.Integer({ minimum: 1, description: 'Exclusive.' }),
  line: Type.String({ description: 'The line (without its line break); a line over 2,000 units is cut around the match.' }),
  line_column: Type.Integer({ minimum: 1, description: 'The column `line` starts at: 1 unless the line was cut.' }),
  before: Type.Array(ContextLine),
  after: Type.Array(ContextLine),
  language: Nullable(Type.String()),
  intent: Nullable(Type.String()),
  read: Type.Object({ target: Type.String(), path: Type.String() }),
});
export type GrepMatchType = Static<typeof GrepMatch>;

export const GrepResponse = Type.Object({
  inventory_kind: Type.Enum(['source', 'site']),
  requested_target: Type.String(),
  canonical_target: Type.String(),
  served: ListIdentity,
  matches: Type.Array(GrepMatch),
  has_more: Type.Boolean({ description: 'Ask again with next_cursor; a page after a bound may turn out empty.' }),
  next_cursor: Nullable(Type.String()),
  stopped_at: Nullable(
    Type.Enum(['limit', 'time', 'bytes_scanned'], {
      description:
        'The bound this page stopped at (inside a file too: the cursor resumes at its line); null when the search is complete. `bytes_scanned` is also the work bound: characters × the size of the compiled pattern.',
    }),
  ),
  capped_files: Type.Array(Type.String(), { description: 'Files with more matches than one file reports (500): the rest of theirs are left out.' }),
  skipped_lines: Type.Array(Type.Object({ path: Type.String(), line_number: Type.Integer({ minimum: 1 }) }), {
    description: 'Lines not searched: matching one would cost more than a whole request may (its length × the size of the compiled pattern). Exact text, or a simpler pattern, searches them.',
  }),
  files_scanned: Type.Integer({ minimum: 0 }),
  files_with_matches: Type.Integer({ minimum: 0 }),
  bytes_scanned: Type.Integer({ minimum: 0 }),
  index_narrowed: Type.Boolean({ description: 'Whether the trigram index chose the files scanned (else every selected text file was read).' }),
});
export type GrepResponseType = Static<typeof GrepResponse>;
