/**
 * /ServiceProviderConfig ([RFC7643§5](https://datatracker.ietf.org/doc/html/rfc7643#section-5)), true to
 * what is implemented: PATCH, filters (up to `maxResults` per page), sorting and ETags; no bulk, no
 * password change; bearer tokens; index and RFC 9865 cursor paging (§4 `pagination`), index by default. Built here rather than from SCIMMY's process-wide Config, so nothing
 * another module sets there can change what a client is told.
 */
import type { ScimSettings } from "../context";

const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";

/** The ServiceProviderConfig resource of the directory at `base` (`…/scim/v2/<directory>`). */
export function serviceProviderConfig(settings: ScimSettings, base: string): Record<string, unknown> {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: settings.maxResults },
    changePassword: { supported: false },
    // sortBy works on every attribute, but only these are answered from an index at any directory size;
    // RFC 7643 §5 gives `sort` no place for that, so a description says it (clients ignore what they do not know)
    sort: {
      supported: true,
      description: `Without a filter, sortBy userName, displayName, meta.created and meta.lastModified (Groups: displayName, meta.created, meta.lastModified) is answered from an index at any size. Sorting by another attribute, with a filter no index answers, or at the server root is not supported once it would read more than ${settings.maxScanRecords} records (400 tooMany).`,
    },
    etag: { supported: true },
    // RFC 9865 §4: "A SCIM service provider implementing cursor-based pagination SHOULD include" `pagination`.
    // Index stays the default method: Okta and Entra page by startIndex (IDP-DIALECTS O7).
    pagination: {
      cursor: true,
      index: true,
      defaultPaginationMethod: "index",
      defaultPageSize: settings.defaultCount,
      maxPageSize: settings.maxResults,
      cursorTimeout: settings.cursorTimeoutSeconds,
    },
    authenticationSchemes: [{
      type: "oauthbearertoken",
      name: "OAuth Bearer Token",
      description: "Authentication scheme using the OAuth Bearer Token Standard",
      specUri: "https://datatracker.ietf.org/doc/html/rfc6750",
      documentationUri: "https://datatracker.ietf.org/doc/html/rfc6750",
      primary: true,
    }],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  };
}
