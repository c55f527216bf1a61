/** How a package source fails, whatever its registry: the preparation and the listing tell them by type. */

/** The registry could not be asked (network, 5xx, timeout): not an answer about the package. */
export class RegistryUnavailable extends Error {
  constructor(readonly timedOut: boolean, options?: ErrorOptions) {
    super(timedOut ? 'the registry did not answer in time' : 'the registry could not be reached', options);
    this.name = 'RegistryUnavailable';
  }
}

/** The registry answered with a document this client cannot read (e.g. `versions` not an object). */
export class RegistryMalformed extends Error {
  constructor(options?: ErrorOptions) {
    super('the registry answered with a malformed package document', options);
    this.name = 'RegistryMalformed';
  }
}

/** The tarball is gone (404/410) or the version has none: a package-owned inventory cannot be made. */
export class TarballUnavailable extends Error {
  constructor(readonly status: number | null) {
    super('the package tarball is not available');
    this.name = 'TarballUnavailable';
  }
}
