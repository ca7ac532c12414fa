/**
 * A directory's declared User extensions (config `directories[].extensions`), looked up by lower-cased URN
 * and attribute path, and the scope that makes them known to the attribute table of the current request.
 *
 * SCIMMY's schema definitions are process-wide (STACK.md §6), while each directory declares its own
 * extensions, so declared attributes are not registered with SCIMMY: the bridge validates, patches and
 * describes them itself (values.ts, patch.ts, documents.ts). The filter evaluator, the sorter and the
 * dialect value fixes look attributes up with `attrInfo` (schemas.ts); for the request being served it
 * falls back to the declared attributes of that request's directory, held in an AsyncLocalStorage scope
 * entered by the directory router (`withDeclaredExtensions`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ExtensionAttributeConfig, ExtensionConfig } from "../../config/extensions";

/** What the evaluator needs to know of one attribute (the same shape as schemas.ts AttrInfo). */
export interface DeclaredAttrInfo {
  type: string;
  caseExact: boolean;
  multiValued: boolean;
}

/** One declared attribute with the extension that declares it. */
export interface DeclaredAttribute {
  ext: ExtensionConfig;
  attr: ExtensionAttributeConfig;
}

export class DeclaredExtensions {
  private readonly byUrn = new Map<string, ExtensionConfig>();
  private readonly byPath = new Map<string, DeclaredAttribute>();

  constructor(readonly list: readonly ExtensionConfig[]) {
    for (const ext of list) {
      const urn = ext.urn.toLowerCase();
      this.byUrn.set(urn, ext);
      for (const attr of ext.attributes) this.byPath.set(`${urn}:${attr.name.toLowerCase()}`, { ext, attr });
    }
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  /** The declared extension named by `urn` (any case). */
  extension(urn: string): ExtensionConfig | undefined {
    return this.byUrn.get(urn.toLowerCase());
  }

  /** The declared extension whose attributes `path` (`<urn>:<attr>…`, any case) lies under. */
  extensionOf(path: string): ExtensionConfig | undefined {
    const lower = path.toLowerCase();
    for (const [urn, ext] of this.byUrn) if (lower.startsWith(`${urn}:`)) return ext;
    return undefined;
  }

  /** The declared attribute at `<urn>:<attr>` (any case, no filter), or undefined. */
  attribute(path: string): DeclaredAttribute | undefined {
    return this.byPath.get(path.toLowerCase());
  }

  /** Characteristics of the attribute at lower-cased `path`, for the attribute table. */
  info(path: string): DeclaredAttrInfo | undefined {
    const hit = this.byPath.get(path);
    return hit ? { type: hit.attr.type, caseExact: hit.attr.caseExact, multiValued: hit.attr.multiValued } : undefined;
  }
}

const NONE = new DeclaredExtensions([]);
/** One instance per directory config list (the registry keeps a directory's config object until it changes). */
const built = new WeakMap<readonly ExtensionConfig[], DeclaredExtensions>();

/** The declared extensions of a directory config's `extensions` list (built once per list). */
export function declaredExtensions(list: readonly ExtensionConfig[] | undefined): DeclaredExtensions {
  if (!list?.length) return NONE;
  let d = built.get(list);
  if (!d) built.set(list, (d = new DeclaredExtensions(list)));
  return d;
}

const scope = new AsyncLocalStorage<DeclaredExtensions>();

/** Runs `fn` (and everything it awaits) with `declared` as the current request's extensions. */
export function withDeclaredExtensions<T>(declared: DeclaredExtensions, fn: () => T): T {
  return scope.run(declared, fn);
}

/** The current request's declared extensions (none outside a directory request). */
export function currentExtensions(): DeclaredExtensions {
  return scope.getStore() ?? NONE;
}
