/**
 * Keys of the directory registry: directories created at runtime (admin API, CLI, status page), the
 * credentials of every directory (SCIM tokens, OAuth client secrets) and OAuth access tokens.
 *
 *   <keyPrefix>:directories            HASH   runtime directory id → JSON {input, disabled, createdAt, updatedAt}
 *                                             (input: the directory as the config file would hold it, without
 *                                             tokenHashes; validated with the config schema)
 *   <keyPrefix>:directories:audit      LIST   deletes and deprovision answers (JSON {action, directory, by, at,
 *                                             count, platform?, deletedKeys?}), newest first, 1000 kept; outside
 *                                             any directory's keys, so it outlives a purge
 *   <keyPrefix>:directories:changed    CHANNEL pub/sub: any change to a directory or its credentials (payload: id)
 *   <keyPrefix>:directories:version    STRING a counter raised by every change announced on the channel (the
 *                                             periodic reload reads it and loads everything only when it moved)
 *   <keyPrefix>:directories:disabled   SET    ids of disabled config-file directories (a config directory's
 *                                             settings are read-only; being disabled is runtime state)
 *   P credentials                      HASH   credential id → JSON {kind ("token"|"client-secret"), label,
 *                                             hash (SHA-256 hex), createdAt, expiresAt?}; never the secret
 *   P credentials:used                 HASH   credential id → last use (ISO; written at most once a minute)
 *   P oauth:at:<sha256 of token>       STRING an OAuth access token of the directory ("1"), expiring with it
 * where P = `<keyPrefix>:{<directoryId>}:` like every key of one directory.
 */
import { DirectoryKeys } from "../store/keys";

/** Key builder of the registry. */
export class RegistryKeys {
  constructor(readonly keyPrefix: string) {}
  get directories(): string { return `${this.keyPrefix}:directories`; }
  get channel(): string { return `${this.keyPrefix}:directories:changed`; }
  get version(): string { return `${this.keyPrefix}:directories:version`; }
  get disabledConfig(): string { return `${this.keyPrefix}:directories:disabled`; }
  get audit(): string { return `${this.keyPrefix}:directories:audit`; }
  credentials(dir: string): string { return `${new DirectoryKeys(this.keyPrefix, dir).prefix}credentials`; }
  lastUsed(dir: string): string { return `${new DirectoryKeys(this.keyPrefix, dir).prefix}credentials:used`; }
  accessToken(dir: string, tokenHash: string): string { return `${new DirectoryKeys(this.keyPrefix, dir).prefix}oauth:at:${tokenHash}`; }
  /** SCAN pattern of every key of one directory (store, sync state, credentials, counters). */
  directoryPattern(dir: string): string { return `${new DirectoryKeys(this.keyPrefix, dir).prefix}*`; }
}
