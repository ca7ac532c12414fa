/**
 * The one error the simulator's routes throw. `error-handler.ts` renders it: RFC 7644 error bodies on SCIM
 * paths, `{ "error": "<message>" }` elsewhere ("Shape of the error response body: not shown").
 */

/** An HTTP failure with the platform's message. `scimType` is used on SCIM paths only. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = this.constructor.name;
  }
}
