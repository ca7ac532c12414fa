/**
 * 401 from the platform: "401 means the credential is missing, malformed or expired". The sync engine stops
 * the directory and alerts; retrying cannot help.
 */
import { PlatformError } from "./platform-error";

export const AUTH_ERROR_MESSAGE = "credential missing, malformed or expired";

/** The platform rejected the credential. */
export class AuthError extends PlatformError {
  constructor(message = AUTH_ERROR_MESSAGE, requestId?: string, status = 401) {
    super(status, message, requestId);
  }
}
