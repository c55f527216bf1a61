#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ADVISORIES_USAGE, TOKENS_USAGE, UsageError } from './commands/usage.js';
import { ConfigError, redactUrl } from './config-env.js';
import { UnreachableServiceError } from './unreachable.js';
import type * as SbomCommand from './commands/sbom.js';
import type { DatabaseHandle } from './db/client.js';

// Each command loads its own modules when it runs (`await import`): `pkgscope --help` and
// `pkgscope sbom` start without the HTTP server, the queues, the database layer or the logger.

const USAGE = `usage: pkgscope <command>

commands:
  start      migrate, then run one API and one worker process (restarted if they crash)
  api        serve the HTTP API
  worker     process queued jobs
  migrate    create the database if missing and apply migrations
  tokens     create, list or revoke API tokens (pkgscope tokens --help)
  sbom       analyse manifests and lockfiles locally, no service needed (pkgscope sbom --help)
  advisories import OSV advisories or show what is loaded (pkgscope advisories --help)

Configuration comes from the environment; see README.md.`;

/** Exit codes: 0 ok, 1 failure, 2 usage or configuration error. */
/** A command's output, one line at a time, on the process's own streams. */
const LINES = { out: (line: string) => process.stdout.write(`${line}\n`), err: (line: string) => process.stderr.write(`${line}\n`) };

/** Runs a command against the service's database (migrated first), closing its pool whatever happens. */
async function withDatabase(url: string, connections: number, run: (db: DatabaseHandle['db']) => Promise<number>): Promise<number> {
  const [{ runMigrations }, { connectDatabase }] = await Promise.all([import('./db/migrate.js'), import('./db/client.js')]);
  await runMigrations(url);
  const database = connectDatabase(url, { max: connections, applicationName: 'pkgscope-cli' });
  try {
    return await run(database.db);
  } finally {
    await database.close();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  // Help needs no configuration.
  if (command === 'tokens' && ['--help', '-h', 'help'].includes(rest[0] ?? '')) {
    process.stdout.write(`${TOKENS_USAGE}\n`);
    return 0;
  }
  if (command === 'advisories' && ['--help', '-h', 'help'].includes(rest[0] ?? '')) {
    process.stdout.write(`${ADVISORIES_USAGE}\n`);
    return 0;
  }
  // Loaded once a command needs it: `pkgscope --help` reads four modules.
  const { loadConfig } = await import('./config.js');
  const config = loadConfig();
  switch (command) {
    case 'api': {
      const [{ runApi }, { createLogger }] = await Promise.all([import('./processes/api-process.js'), import('./logger.js')]);
      await runApi(config, createLogger(config.logLevel, undefined, { role: 'api' }));
      return -1;
    }
    case 'worker': {
      const [{ runWorker }, { createLogger }] = await Promise.all([import('./processes/worker-process.js'), import('./logger.js')]);
      await runWorker(config, createLogger(config.logLevel, undefined, { role: 'worker' }));
      return -1;
    }
    case 'start': {
      const [{ createLogger }, { checkRedis }, { runMigrations }, { Supervisor }, { onShutdownSignals }] = await Promise.all([
        import('./logger.js'),
        import('./redis.js'),
        import('./db/migrate.js'),
        import('./processes/supervisor.js'),
        import('./processes/signals.js'),
      ]);
      const logger = createLogger(config.logLevel, undefined, { role: 'supervisor' });
      parseArgs({ args: [...rest], options: {}, strict: true });
      await checkRedis(config.redisUrl);
      const { applied } = await runMigrations(config.databaseUrl);
      logger.info({ applied }, 'migrations current');
      const supervisor = new Supervisor({
        script: fileURLToPath(import.meta.url),
        children: [
          { name: 'api', args: ['api'] },
          // Both children on one machine: the worker's ops port is the next one.
          { name: 'worker', args: ['worker'], ...(config.ops.port === null ? {} : { env: { OPS_PORT: String(config.ops.port + 1) } }) },
        ],
        logger,
        graceMs: config.shutdownGraceMs + 5_000,
        // One line for a person, on stderr: stdout stays JSON log lines for machines.
        onListening: (url) => process.stderr.write(`pkgscope is running: console ${url}/console, OpenAPI document ${url}/v1/openapi.json (no token needed), API ${url}/v1\n`),
      });
      supervisor.start();
      onShutdownSignals(
        async (signal) => {
          logger.info({ signal }, 'stopping');
          await supervisor.stop('SIGTERM');
        },
        (code) => {
          if (code !== 0) supervisor.kill();
          process.exit(code);
        },
      );
      return -1;
    }
    case 'migrate': {
      const { runMigrations } = await import('./db/migrate.js');
      const { applied } = await runMigrations(config.databaseUrl);
      process.stderr.write(`migrations applied: ${applied}\n`);
      return 0;
    }
    case 'sbom': {
      // Built, the command runs from its bundle (scripts/bundle-cli.js, dist/cli/); from the
      // sources, from its modules.
      const { sbomCommand } = (await import(import.meta.url.endsWith('.ts') ? './commands/sbom.js' : '../cli/sbom.js')) as typeof SbomCommand;
      const tty = process.stderr.isTTY;
      return await sbomCommand(
        rest,
        {
          out: (line) => process.stdout.write(`${line}\n`),
          err: (line) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
          writeOut: (text) => process.stdout.write(text),
          progress: tty ? (line) => process.stderr.write(`\r\x1b[K${line}`) : null,
        },
        config.resolutionTimeoutMs,
        config.registryConcurrency.cli,
        config.databaseUrl,
      );
    }
    case 'tokens': {
      if (rest[0] === undefined) throw new UsageError(TOKENS_USAGE);
      const { tokensCommand } = await import('./commands/tokens.js');
      return withDatabase(config.databaseUrl, 2, (db) => tokensCommand(db, rest, LINES, { where: redactUrl(config.databaseUrl) }));
    }
    case 'advisories': {
      if (rest[0] === undefined) throw new UsageError(ADVISORIES_USAGE);
      const { advisoriesCommand } = await import('./commands/advisories.js');
      return withDatabase(config.databaseUrl, 4, (db) => advisoriesCommand(db, rest, LINES, { ecosystems: config.advisories.dbUrl === null ? [] : config.advisories.ecosystems }));
    }
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // -1: a long-running process that exits from its signal handler.
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`pkgscope: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`pkgscope: ${error.message || 'see `pkgscope --help`'}\n`);
      process.exit(2);
    }
    if (error instanceof UnreachableServiceError) {
      process.stderr.write(`pkgscope: ${error.message}\n`);
      process.exit(1);
    }
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') && error instanceof Error) {
      process.stderr.write(`pkgscope: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`pkgscope: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
