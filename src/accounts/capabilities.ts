export const CAPABILITIES = ['list', 'read', 'sbom'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}

/** Parses `list,read` (the CLI's --capabilities); throws naming the unknown ones. */
export function parseCapabilities(text: string): Capability[] {
  const names = text
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !isCapability(n));
  if (unknown.length > 0) {
    throw new Error(`unknown capabilities: ${unknown.join(', ')} (known: ${CAPABILITIES.join(', ')})`);
  }
  return [...new Set(names.filter(isCapability))];
}
