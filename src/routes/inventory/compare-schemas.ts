import { Type, type Static, type TSchema } from 'typebox';
import { ListIdentity } from './schemas.js';

/** `POST /v1/experimental/compare` and `GET /v1/experimental/compare/diff`. */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const CompareRequestBody = Type.Object(
  {
    base: Type.String({ minLength: 1, description: 'The older side: a package version (`npm:react@18.2.0`) or a repository ref (`github:owner/repo@v1`).' }),
    head: Type.String({ minLength: 1, description: 'The newer side: the same package or repository.' }),
    paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: 'List selectors (directories compared recursively); default everything.' })),
    file_types: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    languages: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    intents: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Changed paths per page.' })),
    after: Type.Optional(Type.String({ description: 'next_cursor of the previous page (bound to both sides and the selection).' })),
    wait_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 210_000 })),
  },
  { additionalProperties: false },
);
export type CompareRequestBodyType = Static<typeof CompareRequestBody>;

const Side = Type.Object({
  byte_size: Nullable(Type.Integer({ minimum: 0 })),
  line_count: Nullable(Type.Integer({ minimum: 0 })),
  content_hash: Nullable(Type.String()),
  read: Type.Object({ target: Type.String(), path: Type.String() }),
});

export const CompareChange = Type.Object({
  path: Type.String(),
  status: Type.Enum(['added', 'removed', 'modified']),
  language: Nullable(Type.String()),
  file_type: Nullable(Type.String()),
  intent: Nullable(Type.String()),
  base: Nullable(Side),
  head: Nullable(Side),
  diff: Nullable(
    Type.Object({ base: Type.String(), head: Type.String(), path: Type.String() }, { description: 'The query of GET /v1/experimental/compare/diff for this path (text files that changed).' }),
  ),
});
export type CompareChangeType = Static<typeof CompareChange>;

const CompareSide = Type.Object({ requested_target: Type.String(), canonical_target: Type.String(), served: ListIdentity });

export const CompareResponse = Type.Object({
  base: CompareSide,
  head: CompareSide,
  changes: Type.Array(CompareChange),
  summary: Type.Object(
    { added: Type.Integer({ minimum: 0 }), removed: Type.Integer({ minimum: 0 }), modified: Type.Integer({ minimum: 0 }), unchanged: Type.Integer({ minimum: 0 }) },
    { description: 'Over the whole selection, not this page.' },
  ),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});
export type CompareResponseType = Static<typeof CompareResponse>;

export const DiffQuery = Type.Object(
  {
    base: Type.String({ minLength: 1 }),
    head: Type.String({ minLength: 1 }),
    path: Type.String({ minLength: 1 }),
    context: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 3, description: 'Unchanged lines around each hunk.' })),
  },
  { additionalProperties: false },
);
export type DiffQueryType = Static<typeof DiffQuery>;

export const DiffResponse = Type.Object({
  path: Type.String(),
  status: Type.Enum(['added', 'removed', 'modified', 'unchanged']),
  binary: Type.Boolean({ description: 'Either side is not UTF-8 text: no line diff is given.' }),
  diff: Nullable(Type.String({ description: 'Unified diff (`--- a/<path>`, `+++ b/<path>`).' })),
  truncated: Type.Boolean({ description: 'A side or the diff was over the bound (1 MiB), or too different to diff in bounded work: no diff is given.' }),
  base: Nullable(Side),
  head: Nullable(Side),
});
export type DiffResponseType = Static<typeof DiffResponse>;
