import type { App, RoutePlugin } from '../http/app.js';
import { AUTHENTICATED_PROBLEMS, json, problemResponses } from '../http/openapi.js';
import { ProblemError } from '../http/problems.js';
import { NO_QUERY_PARAMETERS } from '../http/validation.js';
import { parseTarget, type PackageTarget } from '../inventory/targets.js';
import type { PackageInspection } from '../packages/inspection.js';
import {
  ChangelogQuery,
  ChangelogResponse,
  PACKAGE_FIELDS,
  PackageParams,
  PackageQuery,
  PackageResponse,
  UpgradeReviewBody,
  UpgradeReviewResponse,
  type ChangelogResponseType,
  type PackageField,
} from '../packages/schemas.js';
import type { UpgradeReview } from '../packages/upgrade-review.js';

/**
 * Package inspection: `GET /v1/packages/{target}` (a version's registry facts, dependencies,
 * vulnerabilities and recent versions), `GET /v1/packages/{target}/changelog` and
 * `POST /v1/packages/upgrade-review`. Inspection is reading: the `read` capability.
 */

export interface PackageRouteDeps {
  readonly inspection: PackageInspection;
  readonly review: UpgradeReview;
}

/** Members always answered, so `fields` may name them without effect. */
const IDENTITY = new Set(['requested_target', 'canonical_target', 'registry', 'package_name', 'requested_version', 'fetched_at']);

export function packageTargetOf(field: string, text: string): PackageTarget {
  if (text.trim() === '') throw new ProblemError('VALIDATION_ERROR', `${field} must not be blank.`);
  const parsed = parseTarget(text);
  if (!parsed.ok) throw new ProblemError('VALIDATION_ERROR', `${field}: ${parsed.detail}.`);
  if (parsed.target.kind !== 'package') throw new ProblemError('VALIDATION_ERROR', `${field} must be a package target (<registry>:<name>[@<version>]), e.g. npm:express@4.17.1.`);
  return parsed.target;
}

/** `fields`: comma-separated members; unknown ones are a 400 rather than silently ignored. */
export function fieldsOf(text: string | undefined): Set<PackageField> {
  if (text === undefined || text.trim() === '') return new Set(PACKAGE_FIELDS);
  const chosen = new Set<PackageField>();
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '' || IDENTITY.has(name)) continue;
    const field = PACKAGE_FIELDS.find((f) => f === name);
    if (field === undefined) throw new ProblemError('VALIDATION_ERROR', `fields names an unknown member ${JSON.stringify(name)}; members: ${PACKAGE_FIELDS.join(', ')}.`);
    chosen.add(field);
  }
  return chosen;
}

const PROBLEMS = problemResponses(...AUTHENTICATED_PROBLEMS, 404, 502, 504);

export function packagesRoutes(deps: PackageRouteDeps): RoutePlugin {
  return async (app: App) => {
    app.get(
      '/packages/:target',
      {
        config: { capability: 'read' },
        schema: {
          summary: 'A package version: registry facts, declared dependencies, matched advisories and recent versions',
          operationId: 'inspectPackage',
          tags: ['packages'],
          params: PackageParams,
          querystring: PackageQuery,
          response: { 200: json('The version the target resolved to, with the members `fields` names.', PackageResponse), ...PROBLEMS },
          'x-service-cost': { weight: 1, class: 'light' },
        },
      },
      async (request) => deps.inspection.inspect(packageTargetOf('target', request.params.target), fieldsOf(request.query.fields), request.query.versions_limit ?? 50),
    );
    app.get(
      '/packages/:target/changelog',
      {
        config: { capability: 'read' },
        schema: {
          summary: 'The changelog entries of a package between two versions, from its own CHANGELOG/HISTORY/NEWS file',
          operationId: 'packageChangelog',
          tags: ['packages'],
          params: PackageParams,
          querystring: ChangelogQuery,
          response: { 200: json('The entries, newest first, with the coverage of the versions in between.', ChangelogResponse), ...PROBLEMS },
          'x-service-cost': { weight: 2, class: 'standard' },
        },
      },
      async (request): Promise<ChangelogResponseType> => {
        const target = packageTargetOf('target', request.params.target);
        const to = request.query.to ?? target.spec;
        const resolved = await deps.inspection.resolve({ ...target, spec: to, text: to === null ? target.text : `${target.registry}:${target.name}@${to}` });
        // By default the entries of the resolved version alone: from the version just below it.
        const from =
          request.query.from === undefined
            ? (deps.inspection.newest(resolved).find((v) => (resolved.compare(v.version, resolved.version) ?? 0) < 0)?.version ?? null)
            : (await deps.inspection.resolve({ ...target, spec: request.query.from, text: `${target.registry}:${target.name}@${request.query.from}` })).version;
        const found = await deps.review.changelogBetween(target, from, resolved, request.query.wait_timeout_ms ?? 0);
        return {
          requested_target: target.text,
          canonical_target: resolved.canonical,
          from,
          to: resolved.version,
          file: found.file === null ? null : { path: found.file, read: { target: resolved.canonical, path: found.file } },
          entries: [...found.entries],
          coverage: found.coverage,
        };
      },
    );
    app.post(
      '/packages/upgrade-review',
      {
        config: { capability: 'read' },
        schema: {
          summary: 'What an upgrade changes: vulnerabilities fixed and introduced, dependencies, license, install scripts, files and sizes, breaking hints, changelog',
          operationId: 'upgradeReview',
          tags: ['packages'],
          body: UpgradeReviewBody,
          querystring: NO_QUERY_PARAMETERS,
          response: { 200: json('The review of the upgrade from `target` to `to`.', UpgradeReviewResponse), ...PROBLEMS },
          'x-service-cost': { weight: 3, class: 'standard' },
        },
      },
      async (request) => {
        const target = packageTargetOf('target', request.body.target);
        const to = request.body.to.trim();
        if (to === '' || /\s/.test(to)) throw new ProblemError('VALIDATION_ERROR', 'to must be one version without blanks.');
        return deps.review.review(target, to, request.body.wait_timeout_ms ?? 0);
      },
    );
  };
}
