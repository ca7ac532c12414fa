/**
 * What `config check` refuses for a config-file directory, refused for one made or changed at runtime too
 * (the schema alone accepts both): a plain `http://` platform URL on a non-loopback host without
 * `platform.allowPlainHttp` ("Only HTTPS is accepted", platform-api.md), and a platform key variable no
 * running worker holds — such a directory would never sync, and no worker could say so in its place.
 * The workers advertise the variables they hold (src/sync/control/key-var-store.ts).
 */
import type { DirectoryConfig } from "../config/schema";
import { parseBaseUrl } from "../platform";
import type { KeyVarStore } from "../sync/control/key-var-store";

/**
 * Problems of a runtime directory, as config-issue lines ("- <key>: <message and fix>"). `before`: its
 * settings until now (an update checks the key variable only when it changes).
 */
export async function runtimeDirectoryIssues(dir: DirectoryConfig, keyVars: KeyVarStore | undefined, before?: DirectoryConfig): Promise<string[]> {
  const issues: string[] = [];
  try {
    parseBaseUrl(dir.platform.baseUrl, dir.platform.allowPlainHttp);
  } catch (err) {
    issues.push(`- platform.baseUrl: ${(err as Error).message}`);
  }
  const env = dir.platform.apiKeyEnv;
  if (keyVars && env !== before?.platform.apiKeyEnv && !(await keyVars.held(env))) {
    issues.push(`- platform.apiKeyEnv: no running worker has environment variable ${env} set, so no worker could sync this directory. Fix: set ${env} to the platform API key on the worker processes and (re)start them, then create the directory`);
  }
  return issues;
}
