/**
 * Sends an answer produced as text chunks (a large group's members arrive from Redis slice by slice):
 * each chunk is written as it comes, and the next is produced only once the socket has taken the last
 * (`write` returning false means wait for `drain`), so a slow reader holds at most a chunk in memory.
 * Once the first byte is out no SCIM error can replace the answer: a failure then cuts the connection,
 * which the client sees as an incomplete answer rather than a wrong one.
 */
import type { Response } from "express";
import { SCIM_MEDIA_TYPE, sendScimJson } from "../scim-json";

/** Resolves when the socket has taken what was written, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Sends `answer` with `status` and the headers already set on `res`: JSON whole (with its Content-Length),
 * chunks as they come. An answer of one chunk is sent whole too; errors before the second chunk are still
 * thrown to the caller, so they become SCIM errors.
 */
export async function sendChunks(res: Response, status: number, answer: Record<string, unknown> | AsyncIterable<string>): Promise<void> {
  if (typeof (answer as AsyncIterable<string>)[Symbol.asyncIterator] !== "function") {
    sendScimJson(res.status(status), JSON.stringify(answer));
    return;
  }
  const it = (answer as AsyncIterable<string>)[Symbol.asyncIterator]();
  const first = await it.next();
  let next = first.done ? first : await it.next();
  if (next.done) {
    sendScimJson(res.status(status), first.done ? "" : first.value);
    return;
  }
  res.status(status).setHeader("Content-Type", SCIM_MEDIA_TYPE);
  try {
    res.write(first.value);
    while (!next.done) {
      if (res.destroyed) { await it.return?.(undefined); return; }
      if (!res.write(next.value)) await drained(res);
      next = await it.next();
    }
    res.end();
  } catch (err) {
    await it.return?.(undefined).catch(() => undefined);
    res.destroy(err as Error);
  }
}
