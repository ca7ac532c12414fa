--[[
  The deprovision brake's gate (src/sync/brake/brake-store.ts): decides, atomically, whether one
  deprovision pushed by the IdP may reach the platform now. Deprovisions are counted in a sliding window;
  past the limit, and as long as anything is held, further ones are held for an operator.

  Input:
    KEYS[1]  <P>brake:window    ZSET  "<kind>:<id>" -> ms when counted (at most the limit's worth of members)
    KEYS[2]  <P>brake:held      HASH  "<kind>:<id>" -> held item (JSON)
    KEYS[3]  <P>brake:released  HASH  "<kind>:<id>" -> desired-state version the operator let stay
    KEYS[4]  <P>brake:pass      HASH  "<kind>:<id>" -> "1": confirmed by an operator, passes once
    KEYS[5]  <P>s:st:synced     SET   resources the directory manages on the platform (for the percent limit)
    KEYS[6]  <P>s:<k>:<id>      HASH  the resource's sync state: field `bk` says the brake knows of it (held,
                                      released or pass), so that only then a re-activation asks it to forget
    ARGV[1]  "<kind>:<id>"
    ARGV[2]  now (ms)
    ARGV[3]  window (ms)
    ARGV[4]  max: deprovisions allowed in the window
    ARGV[5]  percent of the managed resources allowed in the window
    ARGV[6]  smallest percent limit applied (a small directory is not braked by a handful)
    ARGV[7]  held item (JSON)
    ARGV[8]  version of the desired state this deprovision applies
    ARGV[9]  "1": not the IdP's (a resync re-applies it, under the resync's own safeguard): only a release
             is honoured, nothing is counted or held

  Output: "pass" (go on), "held" (held for an operator), "engaged" (held, the first of this hold) or
  "released" (an operator let it stay; the IdP has not changed it since)
]]
local m = ARGV[1]
local function hold(verdict)
  redis.call('HSET', KEYS[2], m, ARGV[7])
  redis.call('HSET', KEYS[6], 'bk', 'held')
  return verdict
end
if redis.call('HDEL', KEYS[4], m) == 1 then
  redis.call('HDEL', KEYS[6], 'bk')
  return 'pass'
end
local rel = redis.call('HGET', KEYS[3], m)
if rel then
  if rel == ARGV[8] then return 'released' end
  redis.call('HDEL', KEYS[3], m)
  redis.call('HDEL', KEYS[6], 'bk')
end
if ARGV[9] == '1' then return 'pass' end
if redis.call('HEXISTS', KEYS[2], m) == 1 then return hold('held') end
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
-- a retried deprovision was counted once already
if redis.call('ZSCORE', KEYS[1], m) then return 'pass' end
local counted = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[4])
local byPercent = math.floor((redis.call('SCARD', KEYS[5]) + counted) * tonumber(ARGV[5]) / 100)
if byPercent >= tonumber(ARGV[6]) and byPercent < limit then limit = byPercent end
local holding = redis.call('HLEN', KEYS[2]) > 0
if holding then return hold('held') end
if counted >= limit then return hold('engaged') end
redis.call('ZADD', KEYS[1], now, m)
return 'pass'
