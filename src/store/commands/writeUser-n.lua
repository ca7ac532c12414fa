--[[
  Creates or updates one user, its indexes and its outbox entry, atomically (user-store.ts).

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]   <P>u:<id>      HASH  the user
    KEYS[2]   <P>users       ZSET  ids by creation sequence
    KEYS[3]   <P>seq         STRING the creation sequence
    KEYS[4]   <P>uids        SET   user ids
    KEYS[5]   <P>ix:un       HASH  folded userName → id
    KEYS[6]   <P>ix:uxs      ZSET  "<externalId>\0<id>"
    KEYS[7]   <P>ix:ue       ZSET  "<lower email>\0<id>"
    KEYS[8]   <P>ix:udn      ZSET  "<lower displayName>\0<id>"
    KEYS[9]   <P>sx:u:un     ZSET  sort index (includes/sortIndex.lua)
    KEYS[10]  <P>sx:u:dn     ZSET  sort index
    KEYS[11]  <P>sx:u:m      ZSET  sort index
    KEYS[12]  <P>outbox      STREAM
    KEYS[13]  <P>rq:<request id>  STRING this request's reply once committed (see settleWrite-1.lua)
    KEYS[14]  <P>lc:u:<sha256>    STRING (create only, optional) the id an earlier create of the same
              body was given when its answer was lost (scim/lost-creates/)
    ARGV[1]   user id
    ARGV[2]   mode: "create" | "update"
    ARGV[3]   expected version (If-Match / compare-and-set), "" for none
    ARGV[4]   now (ISO-8601)
    ARGV[5]   d: the resource body as JSON (no id, no meta)
    ARGV[6]   un: userName folded (NFC, case-folded: user-name-fold.ts; unique)
    ARGV[7]   x: externalId ("" when absent; case-exact)
    ARGV[8]   e: email values, lower-cased, "\n"-separated
    ARGV[9]   n: displayName, lower-cased ("" when absent)
    ARGV[10]  "1" when externalId is unique in this directory (option uniqueness.externalId), else ""
    ARGV[11]  seconds to keep the reply under KEYS[13]

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK"|"NOOP", version, created, lastModified}
          {"CONFLICT", attribute} | {"NOTFOUND"} | {"PRECONDITION", currentVersion}
          {"PRIOR", id}: KEYS[14] names another id; nothing written (the caller answers or creates that one)
]]
-- @include settledWrite
-- @include sortIndex
local settled = settledReply(KEYS[13])
if settled then return settled end

-- the write itself (left unindented)
local function run()
local id, mode, expv, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local d, un, x, e, n = ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local uniqueX = ARGV[10] == '1'
local key = KEYS[1]

-- a create the IdP repeats after its answer was lost takes the id the lost one was given
local lost = mode == 'create' and KEYS[14] and redis.call('GET', KEYS[14])
if lost and lost ~= id then return {'PRIOR', lost} end

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
local owner = redis.call('HGET', KEYS[5], un)
if owner and owner ~= id then return {'CONFLICT', 'userName'} end
-- RFC 7643 §3.1 gives externalId no uniqueness; only a directory that asks for it refuses a repeat
if uniqueX and x ~= '' then
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[6], '[' .. x .. '\0', '(' .. x .. '\1', 'LIMIT', 0, 2)) do
    if string.sub(entry, #x + 2) ~= id then return {'CONFLICT', 'externalId'} end
  end
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
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), id)
  -- the ids writeGroup checks its members against (one SMISMEMBER per 1,000 members)
  redis.call('SADD', KEYS[4], id)
end

if old.un and old.un ~= un then redis.call('HDEL', KEYS[5], old.un) end
redis.call('HSET', KEYS[5], un, id)
relex(KEYS[6], old.x, x)
relex(KEYS[7], old.e, e)
relex(KEYS[8], old.n, n)
sortEntry(KEYS[9], old.un, un, id)
sortEntry(KEYS[10], exists and (old.n or '') or nil, n, id)
sortEntry(KEYS[11], old.m, now, id)

redis.call('XADD', KEYS[12], '*', 'k', 'user', 'id', id, 'v', v)
-- the lost create this one repeated is made: its fingerprint has served
if lost then redis.call('DEL', KEYS[14]) end
return {'OK', tostring(v), c, now}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(KEYS[13], out, ARGV[11])
return out
