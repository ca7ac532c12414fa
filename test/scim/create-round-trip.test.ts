/**
 * A POST /Users is one Redis round trip: the write script itself checks whether an identical create lost
 * its answer (scim/lost-creates/, its fingerprint read in the same script), instead of a GET before it.
 * The retry of a lost create is answered like before (test/fault/lost-create.test.ts); this counts what an
 * ordinary create sends.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { userBody } from "../helpers/expect-scim";

let s: TestScim;
const U = "/scim/v2/acme/Users";
beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

/** The commands `s.redis` sends while `fn` runs, each as its name and arguments. */
async function commandsOf(fn: () => Promise<unknown>): Promise<string[][]> {
  const sent: string[][] = [];
  const send = s.redis.sendCommand.bind(s.redis);
  s.redis.sendCommand = ((c: { name: string; args: unknown[] }, ...rest: unknown[]) => {
    sent.push([c.name, ...c.args.map(String)]);
    return (send as (...a: unknown[]) => unknown)(c, ...rest);
  }) as typeof s.redis.sendCommand;
  try {
    await fn();
  } finally {
    s.redis.sendCommand = send;
  }
  return sent;
}

describe("POST /Users", () => {
  it("should read and write the user's keys in one script call, the lost-create check inside it", async () => {
    // the first write loads the script on the connection (EVAL); the count is of a later one
    expect((await request(s.app).post(U).set(s.auth()).send(userBody("round.trip.0@example.com"))).status).toBe(201);
    let status = 0;
    const sent = await commandsOf(async () => { status = (await request(s.app).post(U).set(s.auth()).send(userBody("round.trip.1@example.com"))).status; });
    expect(status).toBe(201);
    // what touches the user's keys (the activity trail, request log and counters write keys of their own)
    const onUser = sent.filter((c) => c.some((a) => a.startsWith(`${s.prefix}:{acme}:users`) || a.startsWith(`${s.prefix}:{acme}:lc:`)));
    expect(onUser.map((c) => c[0])).toEqual(["evalsha"]);
    expect(onUser[0].filter((a) => a.startsWith(`${s.prefix}:{acme}:lc:u:`))).toHaveLength(1);
    // no fingerprint left behind by a create that was answered
    expect(await s.redis.keys(`${s.prefix}:{acme}:lc:*`)).toEqual([]);
  });
});
