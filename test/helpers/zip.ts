import yazl from 'yazl';

/** A zip archive with exactly these entries, in this order (names as given, deflated). */
export function makeZip(entries: Readonly<Record<string, string | Buffer>>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(typeof content === 'string' ? Buffer.from(content, 'utf8') : content, name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.once('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.once('error', reject);
  });
}
