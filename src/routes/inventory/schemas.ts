import { Type, type Static, type TSchema } from 'typebox';
import { INTENTS } from '../../inventory/query/classify.js';

/** The List and Read operations' request and response shapes (the spec's tables), as TypeBox schemas. */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ListRequestBody = Type.Object(
  {
    target: Type.String({ minLength: 1, description: 'Package, repository or site target.' }),
    paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 })),
    recursive: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    after: Type.Optional(Type.String()),
    file_types: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    languages: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    intents: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    wait_timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 210_000 })),
  },
  { additionalProperties: false },
);
export type ListRequestBodyType = Static<typeof ListRequestBody>;

export const ListIdentity = Type.Object({
  kind: Nullable(Type.String()),
  registry: Nullable(Type.String()),
  package_name: Nullable(Type.String()),
  version: Nullable(Type.String()),
  repo_url: Nullable(Type.String()),
  git_ref: Nullable(Type.String()),
  commit_sha: Nullable(Type.String()),
});
export type ListIdentityType = Static<typeof ListIdentity>;

export const ListAvailableVersion = Type.Object({ version: Nullable(Type.String()), ref: Type.String() });
export type ListAvailableVersionType = Static<typeof ListAvailableVersion>;

export const ListEntry = Type.Object({
  kind: Type.Enum(['file', 'page', 'directory']),
  path: Type.String(),
  title: Nullable(Type.String()),
  language: Nullable(Type.String()),
  file_type: Nullable(Type.String()),
  intent: Nullable(Type.String()),
  byte_size: Nullable(Type.Integer({ minimum: 0 })),
  line_count: Nullable(Type.Integer({ minimum: 0 })),
  content_hash: Nullable(Type.String()),
  read: Nullable(Type.Object({ target: Type.String(), path: Nullable(Type.String()) })),
  browse: Nullable(Type.Object({ target: Type.String(), paths: Nullable(Type.Array(Type.String())) })),
});
export type ListEntryType = Static<typeof ListEntry>;

export const ListResolution = Type.Object({
  requested_version: Nullable(Type.String()),
  requested_ref: Nullable(Type.String()),
  resolved_ref: Nullable(Type.String()),
  commit_sha: Nullable(Type.String()),
});

export const ListTargetResolution = Type.Object({
  requested: Nullable(ListIdentity),
  resolved_requested: Nullable(ListIdentity),
  served: Nullable(ListIdentity),
  freshness: Nullable(Type.String()),
  freshness_reason: Nullable(Type.String()),
  indexing_ref: Nullable(Type.String()),
  available_versions: Type.Array(ListAvailableVersion),
  available_refs: Type.Array(ListAvailableVersion),
  suggested_refs: Type.Array(ListAvailableVersion),
});

export const ListIndexingEstimate = Type.Object({
  lower_seconds: Nullable(Type.Integer({ minimum: 0 })),
  upper_seconds: Nullable(Type.Integer({ minimum: 0 })),
  elapsed_seconds: Nullable(Type.Integer({ minimum: 0 })),
  sample_count: Nullable(Type.Integer({ minimum: 0 })),
  source: Nullable(Type.String()),
});

export const ListPreparation = Type.Object({
  selected: Type.Integer({ minimum: 0 }),
  enqueued: Type.Integer({ minimum: 0 }),
  active_jobs: Type.Array(Type.Object({ mode: Nullable(Type.String()), state: Type.String() })),
  awaited: Type.Array(Type.Object({ mode: Nullable(Type.String()), outcome: Type.Enum(['completed', 'discarded', 'cancelled', 'timeout']) })),
});

export const ListResponse = Type.Object({
  inventory_kind: Type.Enum(['source', 'site']),
  requested_target: Type.String(),
  canonical_target: Nullable(Type.String()),
  entries: Type.Array(ListEntry),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
  indexed_version: Nullable(Type.String()),
  resolution: Nullable(ListResolution),
  target_resolution: Nullable(ListTargetResolution),
  code_index_state: Nullable(Type.Enum(['current', 'stale', 'provisional', 'indexing', 'pending', 'failed', 'not_found', 'unresolvable'])),
  indexing_status: Nullable(Type.Enum(['indexed', 'indexing', 'pending', 'failed', 'not_found', 'unresolvable'])),
  indexing_ref: Nullable(Type.String()),
  available_versions: Nullable(Type.Array(ListAvailableVersion)),
  indexing_estimate: Nullable(ListIndexingEstimate),
  inventory_state: Nullable(Type.Enum(['available', 'empty'])),
  crawl_status: Nullable(Type.Enum(['idle', 'running', 'complete', 'failed'])),
  coverage_state: Nullable(Type.Enum(['none', 'partial', 'capped', 'complete'])),
  coverage_reason: Nullable(Type.String()),
  preparation: Nullable(ListPreparation),
});
export type ListResponseType = Static<typeof ListResponse>;

export const ReadQuery = Type.Object(
  {
    target: Type.String({ minLength: 1 }),
    path: Type.String(),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    length: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_048_576 })),
  },
  { additionalProperties: false },
);
export type ReadQueryType = Static<typeof ReadQuery>;

export const ReadResponse = Type.Object({
  inventory_kind: Type.Enum(['source', 'site']),
  requested_target: Type.String(),
  canonical_target: Type.String(),
  path: Type.String(),
  kind: Type.Enum(['file', 'page']),
  title: Nullable(Type.String()),
  language: Nullable(Type.String()),
  file_type: Nullable(Type.String()),
  intent: Nullable(Type.String()),
  byte_size: Nullable(Type.Integer({ minimum: 0 })),
  line_count: Nullable(Type.Integer({ minimum: 0 })),
  content_hash: Nullable(Type.String()),
  encoding: Type.Enum(['utf-8', 'base64']),
  content: Type.String(),
  truncated: Type.Boolean(),
  next_offset: Nullable(Type.Integer({ minimum: 0 })),
  served: ListIdentity,
});
export type ReadResponseType = Static<typeof ReadResponse>;

export const INTENT_VALUES = INTENTS;
