/**
 * Version of the contract between accepted jobs and the parsers that run them. A job accepted
 * under another major version fails with `parser_contract_changed` instead of being analysed
 * with rules it was not submitted under. Bump the major when parsing output changes meaning.
 */
export const PARSER_CONTRACT_VERSION = '1.0.0';

export function contractMajor(version: string): string {
  return version.split('.')[0] ?? version;
}
