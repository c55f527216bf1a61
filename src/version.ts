/** The service's version, as package.json states it (a test keeps the two equal). */
export const SERVICE_VERSION = '0.1.0';
