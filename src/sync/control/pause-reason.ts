/**
 * The reason a directory is paused, said once: what the platform answered, the contract's
 * meaning of that answer, and whatever the platform's own message adds, without repeating the meaning
 * when the platform's message already starts with it.
 *   401 → `platform answered 401 (credential missing, malformed or expired): key expired`
 *   403 on the key check → `key not scoped to deployment 2`
 */
import { AUTH_ERROR_MESSAGE } from "../../platform";

/** What `message` adds to `meaning`: the message without a leading copy of the meaning and its separator. */
function addedBy(message: string, meaning: string): string {
  const m = message.trim();
  if (!m.toLowerCase().startsWith(meaning.toLowerCase())) return m;
  return m.slice(meaning.length).replace(/^[\s:;,.()-]+/, "").replace(/^platform said:\s*/i, "").replace(/\)\s*$/, "").trim();
}

/** Why a process cannot serve a directory: its platform key variable is not set there. */
export function missingKeyReason(apiKeyEnv: string, directoryId: string): string {
  return `environment variable ${apiKeyEnv} (the platform API key of directory ${directoryId}) is not set`;
}

/** Pause reason for a 401 ("401 means the credential is missing, malformed or expired"). */
export function unauthorizedReason(platformMessage: string): string {
  const added = addedBy(addedBy(platformMessage, AUTH_ERROR_MESSAGE), AUTH_ERROR_MESSAGE);
  return `platform answered 401 (${AUTH_ERROR_MESSAGE})${added ? `: ${added}` : ""}`;
}

/** Pause reason for a key that does not cover the directory's deployment (403, or absent from the list). */
export function unscopedReason(deploymentId: number, platformMessage: string): string {
  const meaning = `key not scoped to deployment ${deploymentId}`;
  const added = addedBy(platformMessage, meaning);
  return added ? `${meaning}: ${added}` : meaning;
}
