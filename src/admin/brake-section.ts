/**
 * The status page's section of the deprovision brake (src/sync/brake/brake.ts): per directory that holds
 * deprovisions, why, the held list (first 50) and the forms that confirm or cancel them. The brake's forms
 * are all here, built by `brakeForm`, each with the session's form token (forgery/form-token.ts).
 */
import type { BrakeStatus } from "../sync/brake/brake";
import { esc, when } from "./html";
import { formTokenField } from "./forgery/form-token";

/** One form that answers a directory's brake. */
function brakeForm(dir: string, action: "confirm" | "cancel", label: string): string {
  return `<form method="post" action="/admin/directories/${esc(dir)}/brake">${formTokenField()}<input type="hidden" name="action" value="${action}"><button type="submit">${label}</button></form>`;
}

/** Directories whose brake holds deprovisions, with the list and the answers. */
export function brakeSections(brakes: BrakeStatus[], now: Date): string {
  const holding = brakes.filter((b) => b.state === "holding").map((b) => `<section data-brake="${esc(b.directory)}"><h3>${esc(b.directory)}: ${b.held} deprovision(s) held by the brake</h3>
<p>More than ${b.limits.max} deprovisions (or ${b.limits.percent}% of what the directory manages) came from the IdP within ${b.limits.windowSeconds} s
(${b.counted} counted now). The IdP was answered as usual; these users are still active on the platform:</p>
<table><thead><tr><th>Action</th><th>Name</th><th>Id</th><th>Platform id</th><th>Since</th></tr></thead><tbody>
${b.items.slice(0, 50).map((it) => `<tr><td>${esc(it.action)}</td><td>${esc(it.name ?? "")}</td><td class="msg">${esc(it.id)}</td><td class="msg">${esc(it.platformId ?? "")}</td><td>${when(it.at, now)}</td></tr>`).join("")}
</tbody></table>${b.held > 50 ? `<p>… and ${b.held - 50} more (admin API: GET /admin/directories/&lt;id&gt;/brake)</p>` : ""}
${brakeForm(b.directory, "confirm", "Confirm: apply the held deprovisions")}${brakeForm(b.directory, "cancel", "Cancel: keep them active")}</section>`).join("");
  return holding ? `<h2>Deprovision brake</h2>${holding}` : "";
}
