import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults and is frozen', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/pkgscope',
      redisUrl: 'redis://127.0.0.1:6379',
      authBootstrapToken: null,
      jobTtlSeconds: 86_400,
      cursorSecret: null,
      logLevel: 'info',
      siteAllowPrivateAddresses: false,
      gitHosts: { github: 'https://github.com', gitlab: 'https://gitlab.com', bitbucket: 'https://bitbucket.org' },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.gitHosts)).toBe(true);
    // Sized from the machine's cores.
    const cores = availableParallelism();
    expect(config.analysis.threads).toBe(Math.max(2, cores));
    expect(config.workerConcurrency).toBe(Math.max(4, cores * 2));
  });

  it('takes REGISTRY_CONCURRENCY for the service and the CLI alike, each with its own default when unset', () => {
    expect(loadConfig({}).registryConcurrency).toEqual({ service: 32, cli: 128 });
    expect(loadConfig({ REGISTRY_CONCURRENCY: '10' }).registryConcurrency).toEqual({ service: 10, cli: 10 });
  });

  it('parses given values; empty values count as unset', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      AUTH_BOOTSTRAP_TOKEN: 'dev-token',
      SITE_ALLOW_PRIVATE_ADDRESSES: 'true',
      GIT_HOSTS: '{"github":"http://127.0.0.1:9418/"}',
      LOG_LEVEL: 'DEBUG',
      JOB_TTL_SECONDS: '',
      MAVEN_ALLOWED_REPOSITORIES: 'https://repo.example.test/releases/, https://maven.example.test',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      authBootstrapToken: 'dev-token',
      siteAllowPrivateAddresses: true,
      logLevel: 'debug',
      jobTtlSeconds: 86_400,
      gitHosts: { github: 'http://127.0.0.1:9418', gitlab: 'https://gitlab.com' },
      mavenAllowedRepositories: ['https://repo.example.test/releases', 'https://maven.example.test'],
    });
    expect(loadConfig({}).mavenAllowedRepositories).toEqual([]);
    expect(() => loadConfig({ MAVEN_ALLOWED_REPOSITORIES: 'https://ok.test,ftp://no.test' })).toThrow(/MAVEN_ALLOWED_REPOSITORIES/);
  });

  it('lists every invalid variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '80a',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'nope',
        JOB_TTL_SECONDS: '5',
        SITE_ALLOW_PRIVATE_ADDRESSES: 'maybe',
        AUTH_BOOTSTRAP_TOKEN: 'has space',
        GIT_HOSTS: '[]',
        CURSOR_SECRET: 'short',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'PORT',
      'DATABASE_URL',
      'REDIS_URL',
      'AUTH_BOOTSTRAP_TOKEN',
      'JOB_TTL_SECONDS',
      'CURSOR_SECRET',
      'GIT_HOSTS',
      'SITE_ALLOW_PRIVATE_ADDRESSES',
    ]);
    expect((error as ConfigError).message).not.toContain('has space');
  });
});
