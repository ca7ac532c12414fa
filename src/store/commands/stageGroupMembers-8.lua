--[[
  One slice of a sliced group write (group-write-slices.ts): a write that names more members than one call
  may touch (MEMBER_SLICE), or that clears or replaces a group that has more, builds the group's new member
  hash in a staging hash of its own, slice by slice, and publishGroupMembers-16.lua swaps it in at once.
  Stage-then-publish rather than a version check per slice: a write applied in place would be visible half
  done to every reader (a GET, the worker's member delta) and could not be undone when a later slice fails
  (an unknown member, too many members, a concurrent write); a staging hash nobody reads can be dropped.

  Only a large group (<P>lg, includes/drainMemberOf.lua) is written in slices: it has no reverse-index
  entries, so publishing its new members is one RENAME, not one reverse-index change per member.

  Input:
    KEYS[1] <P>g:<id>   KEYS[2] <P>gm:<id>   KEYS[3] the staging hash <P>gmw:<id>:<token>
    KEYS[4] <P>uids     KEYS[5] <P>users     KEYS[6] <P>groups     KEYS[7] <P>lg
    KEYS[8] P, the directory's prefix: the reverse index of includes/drainMemberOf.lua, cleaned up here
            (mg:<member>) for a group that becomes large
    ARGV[1] mode, ARGV[2] group id, then per mode:
      "begin"  ARGV[3] "create" | "update", ARGV[4] expected version ("" for none), ARGV[5] the body the
               caller read ("" to skip), ARGV[6] most members the write names or the group has,
               ARGV[7] large-group size, ARGV[8] most large groups per directory
               → {"OK", version ("" for a new group)} | {"UNSLICED"} (the group cannot be large: written in
                 one call) | {"CONFLICT", "id"} | {"NOTFOUND"} | {"PRECONDITION", version} | {"RETRY"}
      "copy"   ARGV[3] HSCAN cursor of <P>gm:<id>, ARGV[4] count, ARGV[5] staging TTL (s) → next cursor
      "apply"  ARGV[3] staging TTL (s), ARGV[4] the slice's member operations as JSON, in order:
               [[op, values, displays?], …], op "add" | "remove" (≤ MEMBER_SLICE values in all)
               → {differs, invalid…}: differs "1" when an entry set differs from <P>gm:<id>'s; invalid:
                 the values to add that are no user or group of the directory, or the group itself (not staged)
]]
-- @include drainMemberOf
-- @include memberKinds
local mode, id = ARGV[1], ARGV[2]
-- a group becomes large here only with at most this many times the large-group size indexed (writeGroup-19.lua)
local LARGE_CLEANUP_MAX = 4

if mode == 'copy' then
  local page = redis.call('HSCAN', KEYS[2], ARGV[3], 'COUNT', tonumber(ARGV[4]))
  if #page[2] > 0 then
    redis.call('HSET', KEYS[3], unpack(page[2]))
    redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
  end
  return page[1]
end

if mode == 'apply' then
  local ops = cjson.decode(ARGV[4])
  local want, n = {}, 0
  for _, op in ipairs(ops) do
    if op[1] ~= 'remove' then for _, v in ipairs(op[2]) do n = n + 1; want[n] = v end end
  end
  local kinds, allUsers, unlisted, nUnlisted = memberKinds({uids = KEYS[4], users = KEYS[5], groups = KEYS[6]}, want, n)
  -- users the id set did not hold: added whatever the write's outcome (the set lists the directory's users)
  if nUnlisted > 0 then redis.call('SADD', KEYS[4], unpack(unlisted, 1, nUnlisted)) end
  local differs, out = '0', {}
  local invalidSeen = {}
  for _, op in ipairs(ops) do
    local values, displays = op[2], op[3]
    if op[1] == 'remove' then
      if #values > 0 then redis.call('HDEL', KEYS[3], unpack(values)) end
    elseif #values > 0 then
      local pairs_, np = {}, 0
      for k, v in ipairs(values) do
        local t = allUsers and 'U' or kinds[v]
        if v == id or not t then
          if not invalidSeen[v] then invalidSeen[v] = true; out[#out + 1] = v end
        else
          local disp = displays and displays[k]
          if disp and disp ~= '' then t = t .. disp end
          np = np + 2; pairs_[np - 1] = v; pairs_[np] = t
        end
      end
      if np > 0 then
        if differs == '0' then
          local was, cur = redis.call('HMGET', KEYS[2], unpack(values)), {}
          for j, v in ipairs(values) do cur[v] = was[j] end
          for k = 1, np, 2 do
            if cur[pairs_[k]] ~= pairs_[k + 1] then differs = '1'; break end
          end
        end
        redis.call('HSET', KEYS[3], unpack(pairs_, 1, np))
      end
    end
  end
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
  table.insert(out, 1, differs)
  return out
end

-- "begin": the checks a write makes before its first change, and the group made large when it can be
local create, expv, oldD = ARGV[3] == 'create', ARGV[4], ARGV[5]
local most, largeSize, largeMax, P = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), KEYS[8]
local h = redis.call('HMGET', KEYS[1], 'v', 'd')
if create and h[1] then return {'CONFLICT', 'id'} end
if not create and not h[1] then return {'NOTFOUND'} end
if h[1] and expv ~= '' and tonumber(expv) ~= tonumber(h[1]) then return {'PRECONDITION', h[1]} end
if h[1] and oldD ~= '' and h[2] ~= oldD then return {'RETRY'} end
redis.call('UNLINK', KEYS[3])
if redis.call('SISMEMBER', KEYS[7], id) == 1 then return {'OK', h[1]} end
-- a new group is made large by the publish that creates it; an existing one here, as writeGroup-19.lua
-- would: the reverse index made exact, then the group's entries taken out of it
local size = h[1] and redis.call('HLEN', KEYS[2]) or 0
if math.max(most, size) < largeSize or size > LARGE_CLEANUP_MAX * largeSize or redis.call('SCARD', KEYS[7]) >= largeMax then
  return {'UNSLICED'}
end
if h[1] then
  drainMemberOf(P)
  if size > 0 then
    for _, v in ipairs(redis.call('HKEYS', KEYS[2])) do redis.call('SREM', P .. 'mg:' .. v, id) end
  end
  redis.call('SADD', KEYS[7], id)
end
return {'OK', h[1] or ''}
