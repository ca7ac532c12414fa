/**
 * What a SCIM request handler needs, attached by the directory router: the authenticated directory,
 * its base URL for `location`s, the stores and the SCIM settings.
 */
import type { Response } from "express";
import type { GroupStore, UserStore } from "../store";

/** SCIM settings from config (`scim.*`). */
export interface ScimSettings {
  maxResults: number;
  defaultCount: number;
  maxFilterLength: number;
}

export interface ScimContext {
  directoryId: string;
  /** `<publicBaseUrl>/scim/v2/<directoryId>` */
  base: string;
  users: UserStore;
  groups: GroupStore;
  settings: ScimSettings;
}

/** The context of the current request (set by the directory router after authentication). */
export function scimContext(res: Response): ScimContext {
  const c = res.locals.scim as ScimContext | undefined;
  if (!c) throw new Error("SCIM context missing: directory router not mounted");
  return c;
}
