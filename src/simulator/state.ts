/**
 * The simulator's in-memory platform: SCIM users and groups, embed tenants (external users, scoped groups,
 * scoped attribute definitions), the seeded tenant-wide catalogs, and call counters. `snapshot()` is what
 * `GET /_sim/state` returns.
 */
import type { SimAttributeType, SimConfig } from "./config";
import { Counters, type CountersSnapshot } from "./counters";

/** A SCIM resource as stored (id and meta included). */
export type ScimResource = Record<string, unknown> & { id: string };

/** A SCIM group: members kept in a Map so a member PATCH never rewrites the group. */
export interface SimGroup {
  id: string;
  displayName: string;
  externalId?: string;
  members: Map<string, { value: string; display?: string }>;
  created: string;
  lastModified: string;
  version: number;
}

/** An embed-tenant group (`embed_user_groups`) or tenant group (`tenantGroups` namespace). */
export interface EmbedGroup {
  id: number;
  name: string;
  description?: string;
}

/** An embed-tenant scoped attribute definition (`embed_user_attributes`). */
export interface AttributeDefinition {
  id: number;
  name: string;
  type: SimAttributeType;
  displayName?: string;
  defaultValue?: string;
  description?: string;
}

/** A user-attribute value: "a string, number, array of strings, array of numbers, boolean". */
export type AttributeValue = string | number | boolean | string[] | number[];

/** An external user, keyed by `externalId` within its embed tenant. */
export interface ExternalUser {
  externalId: string;
  email?: string;
  userProfile: { displayName?: string; picture?: string };
  groups: string[];
  tenantGroups: string[];
  userAttributes: Record<string, AttributeValue>;
  createdAt: string;
  updatedAt: string;
}

/** One embed tenant. */
export interface EmbedTenant {
  name: string;
  profile?: { displayName?: string };
  externalUsers: Map<string, ExternalUser>;
  groups: Map<string, EmbedGroup>;
  tenantGroups: Map<string, EmbedGroup>;
  attributes: Map<string, AttributeDefinition>;
}

/** Everything the simulator holds. */
export class SimState {
  readonly users = new Map<string, ScimResource>();
  /** lower-cased userName → id ("userName unique, case-insensitive"). */
  readonly userIdByName = new Map<string, string>();
  readonly groups = new Map<string, SimGroup>();
  /** lower-cased displayName → id. */
  readonly groupIdByName = new Map<string, string>();
  readonly tenants = new Map<string, EmbedTenant>();
  readonly counters = new Counters();
  sessionsIssued = 0;
  private nextEmbedId = 1;

  constructor(readonly config: SimConfig) {}

  /** Forgets everything but the config seed. */
  reset(): void {
    this.users.clear();
    this.userIdByName.clear();
    this.groups.clear();
    this.groupIdByName.clear();
    this.tenants.clear();
    this.counters.reset();
    this.sessionsIssued = 0;
    this.nextEmbedId = 1;
  }

  /** Next integer id for embed groups and definitions ("Identifiers named `id` are integers"). */
  embedId(): number {
    return this.nextEmbedId++;
  }

  /** The tenant, created empty on first use. */
  tenant(name: string): EmbedTenant {
    let t = this.tenants.get(name);
    if (!t) {
      t = { name, externalUsers: new Map(), groups: new Map(), tenantGroups: new Map(), attributes: new Map() };
      this.tenants.set(name, t);
    }
    return t;
  }

  /** External users across all tenants ("external users per account"). */
  externalUserCount(): number {
    let n = 0;
    for (const t of this.tenants.values()) n += t.externalUsers.size;
    return n;
  }

  /** Internal users: the seeded usernames plus SCIM users, matched case-insensitively. */
  internalUserExists(userName: string): boolean {
    const lower = userName.toLowerCase();
    return this.userIdByName.has(lower) || this.config.internalUsers.some((u) => u.toLowerCase() === lower);
  }

  /** Tenant-wide group names: the seeded groups plus SCIM groups. */
  tenantWideGroupExists(name: string): boolean {
    return this.config.groups.includes(name) || this.groupIdByName.has(name.toLowerCase());
  }

  /** The tenant-wide attribute type of `name`, if the catalog has it. */
  tenantWideAttributeType(name: string): SimAttributeType | undefined {
    return this.config.userAttributes.find((a) => a.name === name)?.type;
  }

  /**
   * How much SCIM state there is, for `GET /_sim/counts`: a poller that waits for a sync to land reads three
   * numbers instead of serialising every resource (at 100,000 users a snapshot is tens of MB, and writing
   * it holds every platform call of the bridge until it is done).
   */
  counts(): SimCounts {
    let members = 0;
    for (const g of this.groups.values()) members += g.members.size;
    return { users: this.users.size, groups: this.groups.size, members };
  }

  /** Plain-JSON view of everything, for `GET /_sim/state`. */
  snapshot(): SimStateSnapshot {
    const tenants: SimStateSnapshot["tenants"] = {};
    for (const t of this.tenants.values()) {
      tenants[t.name] = {
        profile: t.profile,
        externalUsers: Object.fromEntries(t.externalUsers),
        groups: [...t.groups.values()],
        tenantGroups: [...t.tenantGroups.values()],
        attributeDefinitions: [...t.attributes.values()],
      };
    }
    return {
      counters: this.counters.snapshot(),
      scim: {
        users: [...this.users.values()],
        groups: [...this.groups.values()].map((g) => ({ id: g.id, displayName: g.displayName, members: [...g.members.values()] })),
      },
      tenants,
      externalUserCount: this.externalUserCount(),
      sessionsIssued: this.sessionsIssued,
    };
  }
}

/** Shape of `GET /_sim/counts`: SCIM users, SCIM groups, and their member entries. */
export interface SimCounts {
  users: number;
  groups: number;
  members: number;
}

/** Shape of `GET /_sim/state`. */
export interface SimStateSnapshot {
  counters: CountersSnapshot;
  scim: {
    users: ScimResource[];
    groups: { id: string; displayName: string; members: { value: string; display?: string }[] }[];
  };
  tenants: Record<
    string,
    {
      profile?: { displayName?: string };
      externalUsers: Record<string, ExternalUser>;
      groups: EmbedGroup[];
      tenantGroups: EmbedGroup[];
      attributeDefinitions: AttributeDefinition[];
    }
  >;
  externalUserCount: number;
  sessionsIssued: number;
}
