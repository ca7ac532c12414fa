/**
 * `scim-bridge brake <directory> [confirm|cancel]`: shows a directory's deprovision brake (state, counts,
 * limits, the held deprovisions) or answers it — confirm applies every held deprovision, cancel releases
 * them (they stay active on the platform until the IdP changes them again). The brake: src/sync/brake/brake.ts.
 */
import type { OpsBackend } from "../backends/ops-backend";

/** Exit code: 0 clear or answered, 1 nothing to answer, 3 the brake holds deprovisions (shown). */
export async function brakeCommand(b: OpsBackend, dir: string, action: "confirm" | "cancel" | undefined, by: string, out: (s: string) => void): Promise<number> {
  await b.requireDirectory(dir);
  if (action) {
    const a = await b.answerBrake(dir, action, by);
    if (!a.answered) { out(a.reason); return 1; }
    out(action === "confirm" ? `confirmed: ${a.count} held deprovision(s) of ${dir} queued` : `cancelled: ${a.count} held deprovision(s) of ${dir} released; they stay active on the platform until the IdP changes them`);
    return 0;
  }
  const s = await b.readBrake(dir);
  out(`${dir}: deprovision brake ${s.state === "holding" ? `HOLDS ${s.held} deprovision(s)` : "clear"}; ${s.counted} counted in the last ${s.limits.windowSeconds} s (limit ${s.limits.max}, or ${s.limits.percent}% of what it manages)`);
  for (const it of s.items) out(`  ${it.action}\t${it.name ?? ""}\t${it.id}\t${it.platformId ?? ""}\t${it.at}`);
  if (s.held > s.items.length) out(`  … and ${s.held - s.items.length} more`);
  if (s.state === "holding") out(`answer with: scim-bridge brake ${dir} confirm | cancel`);
  return s.state === "holding" ? 3 : 0;
}
