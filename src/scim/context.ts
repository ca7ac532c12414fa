/**
 * What a SCIM request handler needs, attached by the directory router: the authenticated directory,
 * its base URL for `location`s, the stores and the SCIM settings.
 */
import type { Response } from "express";
import type { Logger } from "pino";
import type { DeclaredExtensions } from "./extensions/declared";
import type { GroupStore, UserStore, WriteOptions } from "../store";
import type { ScanGate } from "./query/scan-gate";
import type { CursorCodec } from "./cursor/cursor-codec";
import type { SortIndexStore } from "./sorting/sort-index-store";
import type { LostCreates } from "./lost-creates/lost-creates";

/** SCIM settings from config (`scim.*`). */
export interface ScimSettings {
  maxResults: number;
  defaultCount: number;
  maxFilterLength: number;
  /** Comparisons one filter may hold. */
  maxFilterTerms: number;
  /** Records one request's scan may read (400 tooMany beyond). */
  maxScanRecords: number;
  /** Members from which reading a group's members is heavy work (`scim.largeGroupMembers`). */
  heavyGroupMembers: number;
  /** Operations one PATCH may hold (400 tooMany beyond). */
  maxPatchOperations: number;
  /** Longest userName, displayName and externalId, in characters (400 invalidValue beyond). */
  maxIdentifierLength: number;
  /** Seconds a cursor stays valid (RFC 9865 `cursorTimeout`). */
  cursorTimeoutSeconds: number;
  /** Members after which a cursor page of groups ends. */
  maxPageMembers: number;
}

export interface ScimContext {
  directoryId: string;
  /** `<publicBaseUrl>/scim/v2/<directoryId>` */
  base: string;
  users: UserStore;
  groups: GroupStore;
  settings: ScimSettings;
  /** The directory's rules for writes (`uniqueness.externalId`). */
  writeOptions: WriteOptions;
  /** Bounds concurrent heavy requests (scans, large group reads) per directory (shared by every request of this app). */
  scans: ScanGate;
  /** Sort indexes of the directories (sortBy without a scan). */
  sortIndexes: SortIndexStore;
  /** Seals and opens RFC 9865 cursors (one deployment-wide key). */
  cursors: CursorCodec;
  /** The directory's declared User extensions (`extensions`). */
  extensions: DeclaredExtensions;
  /** Refuse attributes the directory does not have instead of ignoring them (`strict`). */
  strict: boolean;
  logger?: Logger;
  /** Answers an identical retry of a create whose answer was lost with what it created (lost-creates/). */
  lostCreates: LostCreates;
}

/** The context of the current request (set by the directory router after authentication). */
export function scimContext(res: Response): ScimContext {
  const c = res.locals.scim as ScimContext | undefined;
  if (!c) throw new Error("SCIM context missing: directory router not mounted");
  return c;
}
