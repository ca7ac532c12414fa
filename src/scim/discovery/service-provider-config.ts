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
    sort: { supported: true },
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
