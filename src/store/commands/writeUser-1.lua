--[[
  Creates or updates one user, its indexes and its outbox entry, atomically.

  Input:
    KEYS[1]  <P>users (anchor key: every key touched shares the directory hash tag of <P>)
    ARGV[1]  <P>, the directory key prefix "<prefix>:{<directory>}:"
    ARGV[2]  user id
    ARGV[3]  mode: "create" | "update"
    ARGV[4]  expected version (If-Match / compare-and-set), "" for none
    ARGV[5]  now (ISO-8601)
    ARGV[6]  d: the resource body as JSON (no id, no meta)
    ARGV[7]  un: userName folded (NFC, case-folded: user-name-fold.ts; unique)
    ARGV[8]  x: externalId ("" when absent; case-exact)
    ARGV[9]  e: email values, lower-cased, "\n"-separated
    ARGV[10] n: displayName, lower-cased ("" when absent)
    ARGV[11] "1" when externalId is unique in this directory (option uniqueness.externalId), else ""
    ARGV[12]  request id: a committed write's result is kept under <P>rq:<request id> for ARGV[13] seconds, and a
             call that finds it there returns it without running again (see settleWrite-1.lua)
    ARGV[13]  seconds to keep that result

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK"|"NOOP", version, created, lastModified}
          {"CONFLICT", attribute} | {"NOTFOUND"} | {"PRECONDITION", currentVersion}
]]
-- @include settledWrite
-- @include sortIndex
local rk = settleKey(ARGV[1], ARGV[12])
local settled = settledReply(rk)
if settled then return settled end

-- the write itself (left unindented)
local function run()
local P, id, mode, expv, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local d, un, x, e, n = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local uniqueX = ARGV[11] == '1'
local key = P .. 'u:' .. id
local exists = redis.call('EXISTS', key) == 1

if mode == 'create' and exists then return {'CONFLICT', 'id'} end
if mode == 'update' and not exists then return {'NOTFOUND'} end

local old = {}
if exists then
  local cur = redis.call('HMGET', key, 'd', 'v', 'c', 'm', 'un', 'x', 'e', 'n')
  old = {d = cur[1], v = tonumber(cur[2]), c = cur[3], m = cur[4], un = cur[5], x = cur[6], e = cur[7], n = cur[8]}
  if expv ~= '' and tonumber(expv) ~= old.v then return {'PRECONDITION', tostring(old.v)} end
end

-- RFC 7643 §4.1.1: userName "MUST be unique across the service provider's entire set of Users"
-- (caseExact false: compared folded, NFC and case-folded)
local owner = redis.call('HGET', P .. 'ix:un', un)
if owner and owner ~= id then return {'CONFLICT', 'userName'} end
-- RFC 7643 §3.1 gives externalId no uniqueness; only a directory that asks for it refuses a repeat
-- (ix:ux is the hash of earlier releases, read until the start-up migration has moved it)
if uniqueX and x ~= '' then
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', P .. 'ix:uxs', '[' .. x .. '\0', '(' .. x .. '\1', 'LIMIT', 0, 2)) do
    if string.sub(entry, #x + 2) ~= id then return {'CONFLICT', 'externalId'} end
  end
  local xo = redis.call('HGET', P .. 'ix:ux', x)
  if xo and xo ~= id then return {'CONFLICT', 'externalId'} end
end

if exists and old.d == d then return {'NOOP', tostring(old.v), old.c, old.m} end

local function split(s)
  local out = {}
  if s and s ~= '' then for part in string.gmatch(s, '[^\n]+') do out[#out + 1] = part end end
  return out
end
local function relex(ix, before, after)
  if before == after then return end
  for _, v in ipairs(split(before)) do redis.call('ZREM', ix, v .. '\0' .. id) end
  for _, v in ipairs(split(after)) do redis.call('ZADD', ix, 0, v .. '\0' .. id) end
end

local v = (old.v or 0) + 1
local c = old.c or now
redis.call('HSET', key, 'd', d, 'v', v, 'c', c, 'm', now, 'un', un, 'x', x, 'e', e, 'n', n)
if not exists then
  redis.call('ZADD', P .. 'users', redis.call('INCR', P .. 'seq'), id)
  -- the ids writeGroup checks its members against (one SMISMEMBER per 1,000 members)
  redis.call('SADD', P .. 'uids', id)
end

if old.un and old.un ~= un then redis.call('HDEL', P .. 'ix:un', old.un) end
redis.call('HSET', P .. 'ix:un', un, id)
relex(P .. 'ix:uxs', old.x, x)
if old.x and old.x ~= '' and old.x ~= x and redis.call('HGET', P .. 'ix:ux', old.x) == id then redis.call('HDEL', P .. 'ix:ux', old.x) end
relex(P .. 'ix:ue', old.e, e)
relex(P .. 'ix:udn', old.n, n)
sortEntry(P .. 'sx:u:un', old.un, un, id)
sortEntry(P .. 'sx:u:dn', exists and (old.n or '') or nil, n, id)
sortEntry(P .. 'sx:u:m', old.m, now, id)

redis.call('XADD', P .. 'outbox', '*', 'k', 'user', 'id', id, 'v', v)
return {'OK', tostring(v), c, now}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[13])
return out
