export { matchVulnerabilities, goVersionOf, type MatchedOccurrence, type MatchOptions } from './match.js';
export { primaryOf } from './aliases.js';
