/**
 * 403 from the platform: "403 means the credential is valid but not authorized for the target", e.g. a
 * deployment outside the key's scope. Not retried.
 */
import { PlatformError } from "./platform-error";

/** Message of `verifyKey` when the key does not cover the configured deployment. */
export const scopeErrorMessage = (deploymentId: number) => `key not scoped to deployment ${deploymentId}`;

/** The credential is valid but not authorized for the target. */
export class ScopeError extends PlatformError {
  constructor(message: string, requestId?: string, status = 403) {
    super(status, message, requestId);
  }
}
