/**
 * Figures that refresh in place. A page with live figures names a JSON endpoint (`<body data-live>`) and
 * marks its parts `data-live-region="<name>"`; this same-origin script (served from the bridge, so the
 * Content-Security-Policy allows it with `script-src 'self'` and no inline script) fetches
 * `{"at", "regions": {name: html}}` every 5 s and replaces each region whose HTML changed. Nothing else on
 * the page is touched, so what a person types, the scroll position and open details survive; a region
 * holding the focus is left alone until the focus moves. Charts are asked for once a minute (`charts=0`
 * otherwise), so a refresh costs a few kilobytes. The regions' HTML is rendered by the server
 * from the same functions as the page, escaped as the page is.
 */
import type { RequestHandler } from "express";

export const LIVE_SCRIPT_PATH = "/admin/assets/live.js";

/** Refresh period, in milliseconds. */
export const LIVE_EVERY_MS = 5000;

/** The JSON a live endpoint answers. */
export interface LiveRegions {
  at: string;
  regions: Record<string, string>;
}

/** A part of a page that the script refreshes. */
export function liveRegion(name: string, html: string, tag = "div"): string {
  return `<${tag} data-live-region="${name}">${html}</${tag}>`;
}

const SCRIPT = `"use strict";
(function () {
  var body = document.body, src = body.getAttribute("data-live");
  if (!src) return;
  var last = {}, busy = false, count = 0;
  // the outcome of the action just taken was shown once: a reload does not show it again
  if (/[?&]notice=/.test(location.search) && history.replaceState) history.replaceState(null, "", location.pathname);
  function say(text) { var el = document.getElementById("live-state"); if (el) el.textContent = text; }
  function tick() {
    if (busy || document.hidden) return;
    busy = true;
    // the charts change by the minute: asked for on every 12th refresh only (an endpoint ignores what it lacks)
    var url = count % 12 === 11 ? src : src + (src.indexOf("?") < 0 ? "?" : "&") + "charts=0";
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error("status " + r.status); return r.json(); })
      .then(function (j) {
        Object.keys(j.regions).forEach(function (name) {
          var el = document.querySelector('[data-live-region="' + name + '"]');
          var html = j.regions[name];
          if (!el || last[name] === html) return;
          var a = document.activeElement;
          if (a && a !== body && el.contains(a)) return;
          el.innerHTML = html;
          last[name] = html;
        });
        count += 1;
        body.setAttribute("data-refreshed", String(count));
        say("updated " + new Date(j.at).toLocaleTimeString());
      })
      .catch(function (e) { say("not updated (" + e.message + "); retrying"); })
      .then(function () { busy = false; });
  }
  setInterval(tick, ${LIVE_EVERY_MS});
})();
`;

/** Serves the script (behind the admin sign-in, like the pages that use it). */
export function liveScript(): RequestHandler {
  return (_req, res) => {
    res.type("application/javascript").send(SCRIPT);
  };
}
