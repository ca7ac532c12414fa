/**
 * Any other 4xx from the platform, carrying its message word for word (`Groups with names x not found`,
 * `User attributes not found`, `cannot change type`, SCIM `detail`s such as a 409 uniqueness), or a request
 * the client refused before the network because it breaks a contract rule (`preflight: true`, status 400).
 */
import { PlatformError } from "./platform-error";

/** The platform (or the client's pre-flight check) rejected the request as invalid. */
export class ValidationError extends PlatformError {
  constructor(
    status: number,
    message: string,
    requestId?: string,
    /** SCIM `scimType` when the platform sent one (e.g. `uniqueness`). */
    readonly scimType?: string,
    /** True when the client refused the request before sending it. */
    readonly preflight = false,
  ) {
    super(status, message, requestId);
  }
}
