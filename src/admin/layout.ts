/**
 * The frame of every admin page: the document, its stylesheet (system fonts only, nothing fetched from
 * outside; usable from a phone to a wide screen), the message of the action just taken (feedback.ts) and,
 * on pages whose figures refresh in place, the same-origin script that refreshes them (live.ts).
 */
import { esc } from "./html";
import { currentNotice } from "./feedback";
import { LIVE_SCRIPT_PATH } from "./live";

const STYLE = `*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:16px 24px;max-width:1400px;color:#1b1f24}
h1{font-size:20px;margin:8px 0}h2{font-size:17px;margin:20px 0 6px}h3{font-size:15px}a{color:#0969da}
.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:8px 0 20px}
th,td{border-bottom:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top}th{background:#f6f8fa}
.state{font-weight:600;padding:2px 8px;border-radius:10px;white-space:nowrap}.in-sync{background:#dafbe1}.syncing{background:#ddf4ff}.failing,.platform-unreachable{background:#ffebe9}.paused{background:#fff8c5}
.msg{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;overflow-wrap:anywhere}form{display:inline}button{margin:0 4px 4px 0;font:inherit;padding:3px 10px}progress{width:200px;max-width:100%}
.disabled{background:#eaeef2}.badge{font-size:11px;padding:1px 6px;border-radius:8px;background:#eaeef2}.charts{display:flex;flex-wrap:wrap;gap:16px}
figure.chart{margin:0}figcaption{font-size:12px}svg text{font:10px system-ui,sans-serif;fill:#57606a}time{border-bottom:1px dotted #8c959f}
ol.timeline{list-style:none;padding-left:0}ol.timeline li{padding:4px 0;border-bottom:1px solid #eaeef2}
.ev-failed,.ev-paused{color:#a40e26}.ev-applied{color:#116329}textarea{width:100%;max-width:720px;font-family:ui-monospace,monospace}
.notice{padding:8px 12px;border-radius:6px;margin:8px 0}.notice.ok{background:#dafbe1}.notice.error{background:#ffebe9}
.field{margin:10px 0;max-width:720px}.field label{display:block;font-weight:600}.field input,.field select{font:inherit;padding:4px 6px;width:100%;max-width:420px}
.field .hint{color:#57606a;font-size:12px}.field .error{color:#a40e26;font-size:13px}.field input[aria-invalid=true]{border:2px solid #cf222e}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.live-state{color:#57606a;font-size:12px}nav.top{display:flex;flex-wrap:wrap;gap:12px;align-items:center}
@media (max-width:700px){body{padding:8px}th,td{padding:4px 6px}.wide{display:none}dl.facts{grid-template-columns:1fr}svg.chart-svg{width:100%;height:auto}}`;

export interface PageOptions {
  /** The JSON endpoint this page's live regions refresh from (absent: the page does not refresh). */
  live?: string;
}

/** A whole admin page. */
export function page(title: string, body: string, opts: PageOptions = {}): string {
  const n = currentNotice();
  const notice = n ? `<p class="notice ${n.ok ? "ok" : "error"}" role="${n.ok ? "status" : "alert"}" data-notice>${esc(n.text)}</p>` : "";
  const live = opts.live ? ` data-live="${esc(opts.live)}"` : "";
  const script = opts.live ? `<script src="${LIVE_SCRIPT_PATH}" defer></script>` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style>${script}</head><body${live}>${notice}${body}</body></html>`;
}
