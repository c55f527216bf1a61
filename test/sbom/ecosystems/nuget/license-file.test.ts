import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nugetEcosystem } from '../../../../src/ecosystems/nuget/analysis.js';
import { licenseOfText } from '../../../../src/ecosystems/nuget/license-text.js';
import { fixtureHttp } from '../../../helpers/registry-fixture.js';

/**
 * NuGet licenses given as a file (`<license type="file">`, the catalog's `licenseFile`): the
 * license is what the file's text is, read from the page the catalog's `licenseUrl` names (shaped
 * like nuget.org's), never that URL.
 */

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/license-file/${name}`, import.meta.url), 'utf8');

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function gallery() {
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (body: string): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    const entry = (id: string, version: string, license: string): string =>
      fixture('catalog-entry.json').replaceAll('Humanizer.Core', id).replaceAll('2.14.1', version).replace('{ORIGIN}', origin).replace('/License"', `/${license}"`);
    if (path === '/v3/index.json') return json(JSON.stringify({ version: '3.0.0', resources: [{ '@id': `${origin}/v3/registration5-gz-semver2/`, '@type': 'RegistrationsBaseUrl/3.6.0' }] }));
    const leaf = /^\/v3\/registration5-gz-semver2\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (leaf !== null) return json(JSON.stringify({ catalogEntry: `${origin}/v3/catalog0/data/${leaf[1] ?? ''}.${leaf[2] ?? ''}.json` }));
    if (path === '/v3/catalog0/data/humanizer.core.2.14.1.json') return json(entry('Humanizer.Core', '2.14.1', 'License'));
    if (path === '/v3/catalog0/data/acme.grid.4.2.0.json') return json(entry('Acme.Grid', '4.2.0', 'eula'));
    if (path === '/v3/catalog0/data/gone.pkg.1.0.0.json') return json(entry('Gone.Pkg', '1.0.0', 'missing'));
    if (path === '/packages/Humanizer.Core/2.14.1/License') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fixture('license-page.html'));
    if (path === '/packages/Acme.Grid/4.2.0/eula') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(fixture('eula.txt'));
    res.writeHead(404).end('not found');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = fixtureHttp(false);
  open.push(http, { close: async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); } });
  return { base: `${origin}/v3/index.json`, http };
}

describe('NuGet license files', () => {
  it('a license file whose text is a well-known license is its SPDX id; another is named by its title; never the URL', async () => {
    const client = nugetEcosystem(await gallery()).metadata;
    expect(await client?.fetch('Humanizer.Core', '2.14.1')).toMatchObject({ license: 'MIT', homepage: 'https://github.com/Humanizr/Humanizer' });
    expect(await client?.fetch('Acme.Grid', '4.2.0')).toMatchObject({ license: 'ACME COMPONENTS SOFTWARE LICENSE AGREEMENT' });
    // The page is gone: the license is unknown, not the address.
    expect(await client?.fetch('Gone.Pkg', '1.0.0')).toMatchObject({ license: null });
  });

  it('tells the well-known texts apart by their distinctive lines', () => {
    const bsd = (third: boolean): string =>
      `Copyright (c) 2020, Example\nRedistribution and use in source and binary forms, with or without modification, are permitted provided that:\n1. Redistributions of source code must retain the above copyright notice, this list of conditions and the following disclaimer.\n${third ? '3. Neither the name of the copyright holder nor the names of its contributors may be used to endorse products.\n' : ''}`;
    expect(licenseOfText(bsd(true))).toBe('BSD-3-Clause');
    expect(licenseOfText(bsd(false))).toBe('BSD-2-Clause');
    expect(licenseOfText('                                 Apache License\n                           Version 2.0, January 2004\n                        http://www.apache.org/licenses/')).toBe('Apache-2.0');
    expect(licenseOfText('ISC License\n\nPermission to use, copy, modify, and/or distribute this software for any\npurpose with or without fee is hereby granted')).toBe('ISC');
    expect(licenseOfText('Mozilla Public License Version 2.0\n==================================')).toBe('MPL-2.0');
    expect(licenseOfText('GNU LESSER GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n... the GNU General Public License ...')).toBe('LGPL-3.0-only');
    expect(licenseOfText('GNU GENERAL PUBLIC LICENSE\nVersion 2, June 1991')).toBe('GPL-2.0-only');
    expect(licenseOfText('https://example.test/eula\n\n')).toBeNull();
  });
});
