export * from './accounts.js';
export * from './settings.js';
export * from './jobs.js';
export * from './registry.js';
export * from './inventory.js';
export * from './advisories.js';
