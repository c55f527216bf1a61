// `pkgscope worker` in a process whose first HTTP request is Node's global fetch, as happens when
// anything in a process fetches before the undici package is first imported: the process-global
// dispatcher is then Node's bundled undici, which product code must never reach.
// No static imports: they would load before the fetch below.

const first = process.env['FETCH_FIRST_URL'];
if (first === undefined) throw new Error('FETCH_FIRST_URL is required');
const response = await fetch(first);
await response.arrayBuffer();
process.stdout.write(`${JSON.stringify({ msg: 'global fetch done', status: response.status })}\n`);
// The CLI reads its command from argv (`worker`, given after this script's path).
await import('../../src/cli.js');
