/** `LOG_LEVEL`'s values (pino's levels): apart from the logger, so that configuration loads no pino. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
