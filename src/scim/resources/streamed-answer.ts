/**
 * Sends an answer produced as text chunks (a large group's members arrive from Redis slice by slice):
 * each chunk is written as it comes, and the next is produced only once the socket has taken the last
 * (`write` returning false means wait for `drain`), so a slow reader holds at most a chunk in memory.
 * Once the first byte is out no SCIM error can replace the answer: a failure then cuts the connection,
 * which the client sees as an incomplete answer rather than a wrong one.
 */
import type { Response } from "express";

const SCIM_JSON = "application/scim+json; charset=utf-8";

/** Resolves when the socket has taken what was written, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Writes `chunks` as the body of a `status` answer, with the headers already set on `res`. An answer of
 * one chunk is sent whole (with its Content-Length); errors before the second chunk are still thrown to
 * the caller, so they become SCIM errors.
 */
export async function sendChunks(res: Response, status: number, chunks: AsyncIterable<string>): Promise<void> {
  const it = chunks[Symbol.asyncIterator]();
  const first = await it.next();
  let next = first.done ? first : await it.next();
  if (next.done) {
    res.status(status).setHeader("Content-Type", SCIM_JSON);
    res.send(first.done ? "" : first.value);
    return;
  }
  res.status(status).setHeader("Content-Type", SCIM_JSON);
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
