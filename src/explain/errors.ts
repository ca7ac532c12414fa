/** What explain and sync-now refuse, apart from their logic (the CLI maps them to exit codes without loading it). */

/** The resource does not exist on either side. */
export class UnknownResourceError extends Error {
  constructor(dir: string, ref: string) {
    super(`directory ${dir} has no user (id or userName) nor group (id or displayName) "${ref}", and no sync state for that id`);
    this.name = this.constructor.name;
  }
}

/** A sync-now that cannot start (409: its reconcile runs now, or the directory is disabled). */
export class SyncNowRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}
