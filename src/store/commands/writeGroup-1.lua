--[[
  Creates or updates one group: its body (displayName, externalId, …) and its membership, applied as
  set deltas so the cost grows with the request, not with the group. Atomic; every check runs before
  the first write, so a refused request changes nothing.

  Input:
    KEYS[1]  <P>groups (anchor)
    ARGV[1]  <P>
    ARGV[2]  group id
    ARGV[3]  mode: "create" | "update"
    ARGV[4]  expected version (If-Match), "" for none
    ARGV[5]  now (ISO-8601)
    ARGV[6]  oldD: body the caller read (compare-and-set on the body), "" to skip the check
    ARGV[7]  newD: new body as JSON (no id, meta or members), "" to leave the body alone
    ARGV[8]  n: displayName lower-cased                 } used only when newD is set
    ARGV[9]  x: externalId ("" when absent)             }
    ARGV[10] dn: displayName as sent                     }
    ARGV[11] maximum members per group
    ARGV[12] the member operations as one JSON array, applied in order: [[name, values, displays?], …]
             name "add" | "remove" | "clear" | "replace"; values [value, …]; displays [display, …]
             (same length as values), left out when no member has one. One argument instead of two
             per member: a 256-member PATCH costs the client and Redis far less to send and parse.

    ARGV[13] "1" when externalId is unique in this directory (option uniqueness.externalId), else ""
    ARGV[14]  request id: a committed write's result is kept under <P>rq:<request id> for ARGV[15] seconds, and a
             call that finds it there returns it without running again (see settleWrite-1.lua)
    ARGV[15]  seconds to keep that result
    ARGV[16]  large-group size (option scim.largeGroupMembers): a group that reaches it leaves the reverse
             index for good (includes/drainMemberOf.lua), unless the directory has ARGV[17] large groups
    ARGV[17]  most large groups per directory (option scim.largeGroupsPerDirectory)

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK", version, created, lastModified, queued} | {"NOOP", version, created, lastModified}
          (queued: "1" when the write left membership changes for the reverse index in <P>mgq, for the
          caller to ask for a drain; "0" otherwise)
          {"CONFLICT", attribute} | {"NOTFOUND"} | {"PRECONDITION", currentVersion} | {"RETRY"}
          {"INVALID", memberValue} | {"TOOMANY", limit}
]]
-- @include settledWrite
local rk = settleKey(ARGV[1], ARGV[14])
local settled = settledReply(rk)
if settled then return settled end

-- @include drainMemberOf
local MEMBER_OF_QUEUE_LIMIT = 256
-- member changes one write applies when the queue is over its limit (more than one 256-member entry: it shrinks)
local MEMBER_OF_DRAIN_BUDGET = 1024
-- a group becomes large only with at most this many times the large-group size indexed before the write
local LARGE_CLEANUP_MAX = 4

-- the write itself (left unindented)
local function run()
local P, id, mode, expv, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local oldD, newD, n, x, dn = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local maxMembers = tonumber(ARGV[11])
local uniqueX = ARGV[13] == '1'
local largeSize, largeMax = tonumber(ARGV[16]), tonumber(ARGV[17])
local key, gm = P .. 'g:' .. id, P .. 'gm:' .. id
local exists = redis.call('EXISTS', key) == 1

if mode == 'create' and exists then return {'CONFLICT', 'id'} end
if mode == 'update' and not exists then return {'NOTFOUND'} end

local cur = {}
if exists then
  local h = redis.call('HMGET', key, 'd', 'v', 'c', 'm', 'n', 'x')
  cur = {d = h[1], v = tonumber(h[2]), c = h[3], m = h[4], n = h[5], x = h[6]}
  if expv ~= '' and tonumber(expv) ~= cur.v then return {'PRECONDITION', tostring(cur.v)} end
  if oldD ~= '' and cur.d ~= oldD then return {'RETRY'} end
end

local docChanged = newD ~= '' and newD ~= cur.d
-- RFC 7643 §4.2: a Group's displayName has uniqueness "none" (§8.7.1), and §3.1 gives externalId none;
-- only a directory that asks for it (uniqueness.externalId) refuses a repeated externalId
-- (ix:gx is the hash of earlier releases, read until the start-up migration has moved it)
if docChanged and uniqueX and x ~= '' then
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', P .. 'ix:gxs', '[' .. x .. '\0', '(' .. x .. '\1', 'LIMIT', 0, 2)) do
    if string.sub(entry, #x + 2) ~= id then return {'CONFLICT', 'externalId'} end
  end
  local xo = redis.call('HGET', P .. 'ix:gx', x)
  if xo and xo ~= id then return {'CONFLICT', 'externalId'} end
end

-- member operations → one delta table: value → "<U|G><display>" (present) or false (absent)
local delta, order = {}, {}
local function set(v, val)
  if delta[v] == nil then order[#order + 1] = v end
  delta[v] = val
end
-- Which of the values to add are users ('U') or groups ('G'), looked up in batches: one ZMSCORE per
-- BATCH values on the id sets <P>users and <P>groups instead of one EXISTS per value. The id sets hold
-- exactly the ids whose u:/g: hash exists (writeUser, deleteUser, writeGroup and deleteGroup keep them
-- in step); Redis before 6.2 has no ZMSCORE and gets the EXISTS per value. BATCH stays far below
-- Lua's unpack limit of 8000.
local BATCH = 1000
local kinds = {}
local memberOps = cjson.decode(ARGV[12])
do
  local want = {}
  for _, op in ipairs(memberOps) do
    if op[1] ~= 'remove' then for _, v in ipairs(op[2]) do want[#want + 1] = v end end
  end
  local function mark(idSet, keyType, t, list)
    local missing = {}
    for s = 1, #list, BATCH do
      local e = math.min(#list, s + BATCH - 1)
      local found = redis.pcall('ZMSCORE', P .. idSet, unpack(list, s, e))
      if found.err then
        found = {}
        for k = s, e do found[k - s + 1] = redis.call('EXISTS', P .. keyType .. list[k]) == 1 end
      end
      for k = s, e do
        if found[k - s + 1] then kinds[list[k]] = t else missing[#missing + 1] = list[k] end
      end
    end
    return missing
  end
  mark('groups', 'g:', 'G', mark('users', 'u:', 'U', want))
end

for _, memberOp in ipairs(memberOps) do
  local op, values, displays = memberOp[1], memberOp[2], memberOp[3]
  if op == 'clear' or op == 'replace' then
    if exists then for _, v in ipairs(redis.call('HKEYS', gm)) do set(v, false) end end
    for _, v in ipairs(order) do delta[v] = false end
  end
  for k, v in ipairs(values) do
    local disp = displays and displays[k] or ''
    if op == 'remove' then
      set(v, false)
    else
      if v == id then return {'INVALID', v} end
      local t = kinds[v]
      if not t then return {'INVALID', v} end
      set(v, t .. disp)
    end
  end
end

-- current entries of the touched members, read and written in batches: one HMGET/HSET/HDEL per
-- BATCH members instead of one call per member (BATCH stays far below Lua's unpack limit of 8000)
local now_vals, size = {}, exists and redis.call('HLEN', gm) or 0
local sizeBefore = size
for s = 1, #order, BATCH do
  local e = math.min(#order, s + BATCH - 1)
  local got = redis.call('HMGET', gm, unpack(order, s, e))
  for j = s, e do
    local v, was = order[j], got[j - s + 1]
    now_vals[v] = was
    if was and delta[v] == false then size = size - 1 end
    if not was and delta[v] then size = size + 1 end
  end
end
if size > maxMembers then return {'TOOMANY', tostring(maxMembers)} end

local changed = docChanged or not exists
local dels, sets, joined = {}, {}, {}
for _, v in ipairs(order) do
  local want, was = delta[v], now_vals[v]
  if want == false then
    if was then
      dels[#dels + 1] = v
      changed = true
    end
  elseif want ~= was then
    sets[#sets + 1] = v
    sets[#sets + 1] = want
    if not was then joined[#joined + 1] = v end
    changed = true
  end
end
for s = 1, #dels, BATCH do redis.call('HDEL', gm, unpack(dels, s, math.min(#dels, s + BATCH - 1))) end
for s = 1, #sets, 2 * BATCH do redis.call('HSET', gm, unpack(sets, s, math.min(#sets, s + 2 * BATCH - 1))) end
-- the members whose membership changed, for the group's reconcile (the delta is not lost between the
-- request and the reconcile: groupMemberDelta-2.lua), each with a change number; one HSET per BATCH
-- (a hash, not a sorted set: nothing reads them in order, and a ZADD of 256 members cost Redis ~0.6 µs
-- more per member than this HSET, a fifth of this script under 256-member PATCHes)
if #dels > 0 or #sets > 0 then
  -- the number as a string: Redis 7.0 formats every Lua number argument with snprintf("%.17g"), once per
  -- member here (~2.5% of Redis's CPU under 256-member PATCHes, perf)
  local seq = tostring(redis.call('INCR', P .. 's:gcseq'))
  local touched = {}
  for _, v in ipairs(dels) do touched[#touched + 1] = v; touched[#touched + 1] = seq end
  for s = 1, #sets, 2 do touched[#touched + 1] = sets[s]; touched[#touched + 1] = seq end
  for s = 1, #touched, 2 * BATCH do redis.call('HSET', P .. 's:gch:' .. id, unpack(touched, s, math.min(#touched, s + 2 * BATCH - 1))) end
end
-- the reverse index (<P>mg:<member>) is not touched here: one entry in <P>mgq records who joined and
-- left, applied later in the background and by any script before it reads the index
-- (includes/drainMemberOf.lua), so a member PATCH costs one command here instead of one per member.
-- A large group (<P>lg) is not in the reverse index at all: its member writes queue nothing.
local queued = '0'
if (#joined > 0 or #dels > 0) and not (exists and redis.call('SISMEMBER', P .. 'lg', id) == 1) then
  -- the group becomes large: the reverse index made exact for every earlier write, then the group's
  -- entries taken out of it (its members before this write, and those this write removed); once per group.
  -- Only while that clean-up is short: it costs Redis ~5.6 µs per member before the write (281 ms for a
  -- 50,000-member group, during which every other client waits), so a group indexed before it could
  -- become large (an earlier release's, or one past the directory's cap) stays indexed beyond 4× the size
  if size >= largeSize and sizeBefore <= LARGE_CLEANUP_MAX * largeSize and redis.call('SCARD', P .. 'lg') < largeMax then
    drainMemberOf(P)
    -- a group that had no members before this write has no entries left once its queue is applied
    if sizeBefore > 0 then
      local new = {}
      for _, v in ipairs(joined) do new[v] = true end
      for _, v in ipairs(redis.call('HKEYS', gm)) do
        if not new[v] then redis.call('SREM', P .. 'mg:' .. v, id) end
      end
      for _, v in ipairs(dels) do redis.call('SREM', P .. 'mg:' .. v, id) end
    end
    redis.call('SADD', P .. 'lg', id)
  else
    redis.call('XADD', P .. 'mgq', '*', 'g', id, 'a', table.concat(joined, '\n'), 'r', table.concat(dels, '\n'))
    queued = '1'
    -- back-pressure: when the background drain falls behind, each write applies a batch itself, so the
    -- queue (and what a reader may have to apply) stays bounded
    if redis.call('XLEN', P .. 'mgq') > MEMBER_OF_QUEUE_LIMIT then drainMemberOf(P, MEMBER_OF_DRAIN_BUDGET) end
  end
end

if not changed then return {'NOOP', tostring(cur.v), cur.c, cur.m} end

if docChanged then
  -- non-unique indexes: "<value>\0<group id>" in lexicographic sorted sets
  for _, ix in ipairs({{'gn', cur.n, n}, {'gx', cur.x, x}}) do
    local before, after = ix[2], ix[3]
    if before ~= after then
      if before and before ~= '' then
        redis.call('ZREM', P .. 'ix:' .. ix[1] .. 's', before .. '\0' .. id)
        if redis.call('HGET', P .. 'ix:' .. ix[1], before) == id then redis.call('HDEL', P .. 'ix:' .. ix[1], before) end
      end
      if after ~= '' then redis.call('ZADD', P .. 'ix:' .. ix[1] .. 's', 0, after .. '\0' .. id) end
    end
  end
  redis.call('HSET', key, 'd', newD, 'n', n, 'x', x, 'dn', dn)
end
local v = (cur.v or 0) + 1
local c = cur.c or now
redis.call('HSET', key, 'v', v, 'c', c, 'm', now)
if not exists then redis.call('ZADD', P .. 'groups', redis.call('INCR', P .. 'seq'), id) end
redis.call('XADD', P .. 'outbox', '*', 'k', 'group', 'id', id, 'v', v)
return {'OK', tostring(v), c, now, queued}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[15])
return out
