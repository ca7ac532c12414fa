/**
 * Entra ID's soft-delete tombstone of a user name. Deleting a user in Entra frees its UPN by prefixing the
 * object id to it, and when an application maps `userName` from the UPN, Entra's provisioning sends that
 * tombstone name together with `active` "False" (IDP-DIALECTS E21); a restore sends the real name back.
 * The bridge stores the name as sent (the SCIM resource is Entra's), but the platform user keeps its real
 * name: renaming it to the tombstone made a restore look like a new person (a duplicate, then 409s forever).
 */

/*
 * Microsoft's Get-EntraDeletedUser reference lists a soft-deleted user with the object id prefixed to its
 * UPN: "dddddddd-3333-4444-5555-eeeeeeeeeeee dddddddd-3333-4444-5555-eeeeeeeeeeeeAveryS@contoso.com"
 * (learn.microsoft.com/powershell/module/microsoft.entra.users/get-entradeleteduser, Example 1), and what
 * provisioning sends has been reported as "<objectId hex, no dashes><original UPN>" (onyx-dot-app/onyx
 * pull request 14074: "283405f5...c2ralf.schwieger@…"). Both spellings of the object id are recognised.
 */
const TOMBSTONE = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(.+@.+)$/i;

/**
 * True when a user body is an Entra soft-delete tombstone: deactivated, with a userName that is an object id
 * followed by a UPN. Only with `active` false: Entra sends every changed attribute of a user in one request,
 * so the tombstone name arrives with the deactivation, and an active user whose name merely looks like one
 * keeps the normal mapping.
 */
export function isEntraTombstone(body: Record<string, unknown>): boolean {
  return body.active === false && typeof body.userName === "string" && TOMBSTONE.test(body.userName);
}
