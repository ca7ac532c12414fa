/** The one refusal of a directory change: the admin API turns it into `status` + `{error, issues?}`. */

/** A refusal the admin API turns into `status` + `{error, issues?}`. */
export class DirectoryChangeError extends Error {
  constructor(readonly status: number, message: string, readonly issues?: string[]) {
    super(message);
    this.name = this.constructor.name;
  }
}
