import { AnalysisError, type FileProblem } from '../../model/types.js';
import type { ClaimedFile } from '../types.js';

/** Why a claimed file could not be used: the parser's own problem when it gave one, else malformed. */
export function problemOf(file: ClaimedFile, error: unknown): FileProblem {
  if (error instanceof AnalysisError && error.problems[0]) return { ...error.problems[0], path: file.path };
  return { path: file.path, reason: 'malformed', message: `not a readable ${file.kind}` };
}
