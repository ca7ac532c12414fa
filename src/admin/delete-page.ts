/**
 * The status page's delete of a directory: a page of its own (no refresh, so the choice a person makes is
 * not reset under them), reached from the *Delete…* link of a disabled runtime directory. The platform side
 * is an explicit choice: leave it as it is (checked) or deprovision it, which lists what it would deprovision
 * and waits for a confirmation on the status page (src/directories/deprovision.ts).
 */
import { formTokenField } from "./forgery/form-token";
import { esc } from "./html";
import { page } from "./layout";

/** The delete page of directory `id`. */
export function deletePage(id: string): string {
  const action = `/admin/directories/${esc(id)}/delete`;
  return page(`scim-bridge — delete ${id}`, `<p><a href="/admin/status/${encodeURIComponent(id)}">← ${esc(id)}</a></p><h1>Delete directory ${esc(id)}</h1>
<p>Every key of the directory in Redis is purged: desired state, sync state, queue, tokens, counters.</p>
<form method="post" action="${action}">${formTokenField()}<fieldset><legend>Its users and groups on the platform</legend>
<label><input type="radio" name="platform" value="leave" checked> Leave them as they are</label><br>
<label><input type="radio" name="platform" value="deprovision"> Deprovision them: first lists what the bridge manages for this directory there and would deactivate or remove, and waits for your confirmation</label>
</fieldset><label>Your name, for the audit <input name="by" maxlength="100"></label><br>
<button type="submit">Delete directory</button></form>`);
}
