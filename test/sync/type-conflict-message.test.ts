/**
 * Issue 14 §4: "`cannot change type` names the attribute and the mapping entry that sent it." The platform's
 * message names neither; the bridge adds the mapping entries its request defined (test/admin/admin-api.test.ts
 * shows the whole message on a failed item).
 */
import { typeConflictDetail } from "../../src/sync/mapping/embed-user";

const entry = (scim: string, name: string, type: "string" | "number" | "boolean") => ({ scim, name, type });

it("should name the one attribute, its type and its mapping entry", () => {
  const detail = typeConflictDetail({ tenantName: "acme-tenant", externalIdAttribute: "userName", groupNameMapping: {}, externalUserLimit: 10000,
    attributeMapping: [entry("title", "jobTitle", "number")] });
  expect(detail).toBe('the platform already defines user attribute "jobTitle" as number (embed.attributeMapping[0], from SCIM title) with another type; '
    + "change that entry's type to the platform's, or rename the attribute");
});

it("should name every candidate when the request defined several", () => {
  const detail = typeConflictDetail({ tenantName: "acme-tenant", externalIdAttribute: "userName", groupNameMapping: {}, externalUserLimit: 10000,
    attributeMapping: [entry("title", "jobTitle", "string"), entry("name.givenName", "first", "string")] });
  expect(detail).toContain('user attribute "jobTitle" as string (embed.attributeMapping[0], from SCIM title); user attribute "first" as string (embed.attributeMapping[1], from SCIM name.givenName)');
});
