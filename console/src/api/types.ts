/**
 * The wire shapes the console reads, as the service contract and DESIGN.md describe them
 * (`POST /v1/list`, `GET /v1/read`, `POST /v1/grep`, `POST /v1/experimental/compare`). The
 * console is a client of the public API, so it states what it relies on here rather than
 * importing the server's schemas (which pull in Node-only modules).
 */

export interface Identity {
  readonly kind: string | null;
  readonly registry: string | null;
  readonly package_name: string | null;
  readonly version: string | null;
  readonly repo_url: string | null;
  readonly git_ref: string | null;
  readonly commit_sha: string | null;
}

export const INTENTS = ['production', 'test', 'benchmark', 'example', 'generated', 'fixture', 'build', 'vendor'] as const;
export type Intent = (typeof INTENTS)[number];

export interface ListRequest {
  target: string;
  paths?: string[];
  recursive?: boolean;
  limit?: number;
  after?: string;
  file_types?: string[];
  languages?: string[];
  intents?: Intent[];
  wait_timeout_ms?: number;
}

export interface ListEntry {
  readonly kind: 'file' | 'page' | 'directory';
  readonly path: string;
  readonly title: string | null;
  readonly language: string | null;
  readonly file_type: string | null;
  readonly intent: string | null;
  readonly byte_size: number | null;
  readonly line_count: number | null;
  readonly content_hash: string | null;
  readonly read: { readonly target: string; readonly path: string | null } | null;
  readonly browse: { readonly target: string; readonly paths: readonly string[] | null } | null;
}

export type CodeState = 'current' | 'stale' | 'provisional' | 'indexing' | 'pending' | 'failed' | 'not_found' | 'unresolvable';

export interface ListResponse {
  readonly inventory_kind: 'source' | 'site';
  readonly requested_target: string;
  readonly canonical_target: string | null;
  readonly entries: readonly ListEntry[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
  readonly indexed_version: string | null;
  readonly code_index_state: CodeState | null;
  readonly indexing_status: string | null;
  readonly indexing_estimate: { readonly lower_seconds: number | null; readonly upper_seconds: number | null; readonly elapsed_seconds: number | null } | null;
  readonly inventory_state: 'available' | 'empty' | null;
  readonly crawl_status: 'idle' | 'running' | 'complete' | 'failed' | null;
  readonly coverage_state: string | null;
  readonly coverage_reason: string | null;
  readonly target_resolution: { readonly served: Identity | null } | null;
}

export interface ReadResponse {
  readonly inventory_kind: 'source' | 'site';
  readonly requested_target: string;
  readonly canonical_target: string;
  readonly path: string;
  readonly kind: 'file' | 'page';
  readonly title: string | null;
  readonly language: string | null;
  readonly file_type: string | null;
  readonly intent: string | null;
  readonly byte_size: number | null;
  readonly line_count: number | null;
  readonly content_hash: string | null;
  readonly encoding: 'utf-8' | 'base64';
  readonly content: string;
  readonly truncated: boolean;
  readonly next_offset: number | null;
}

export interface GrepRequest {
  target: string;
  pattern: string;
  regex?: boolean;
  case_sensitive?: boolean;
  paths?: string[];
  context_lines?: number;
  limit?: number;
  after?: string;
  wait_timeout_ms?: number;
}

export interface GrepMatch {
  readonly path: string;
  readonly line_number: number;
  readonly column_start: number;
  readonly column_end: number;
  readonly line: string;
  readonly line_column: number;
  readonly before: readonly { readonly line_number: number; readonly text: string }[];
  readonly after: readonly { readonly line_number: number; readonly text: string }[];
  readonly language: string | null;
  readonly read: { readonly target: string; readonly path: string };
}

export interface GrepResponse {
  readonly canonical_target: string;
  readonly matches: readonly GrepMatch[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
  readonly stopped_at: 'limit' | 'time' | 'bytes_scanned' | null;
  readonly files_scanned: number;
  readonly files_with_matches: number;
}

export interface CompareRequest {
  base: string;
  head: string;
  paths?: string[];
  limit?: number;
  after?: string;
  wait_timeout_ms?: number;
}

interface CompareSide {
  readonly byte_size: number | null;
  readonly line_count: number | null;
  readonly content_hash: string | null;
  readonly read: { readonly target: string; readonly path: string };
}

export interface CompareChange {
  readonly path: string;
  readonly status: 'added' | 'removed' | 'modified';
  readonly language: string | null;
  readonly base: CompareSide | null;
  readonly head: CompareSide | null;
  readonly diff: { readonly base: string; readonly head: string; readonly path: string } | null;
}

export interface CompareResponse {
  readonly base: { readonly canonical_target: string };
  readonly head: { readonly canonical_target: string };
  readonly changes: readonly CompareChange[];
  readonly summary: { readonly added: number; readonly removed: number; readonly modified: number; readonly unchanged: number };
  readonly has_more: boolean;
  readonly next_cursor: string | null;
}

export interface DiffResponse {
  readonly path: string;
  readonly status: 'added' | 'removed' | 'modified' | 'unchanged';
  readonly binary: boolean;
  readonly diff: string | null;
  readonly truncated: boolean;
}
