--[[
  memberKinds(keys, want, n, P): which of the n values `want[1..n]` (member values to add) are users ('U')
  or groups ('G') of the directory. keys: {uids = <P>uids, users = <P>users, groups = <P>groups}.
  Returns kinds (value → 'U' | 'G'; a value that is neither is absent), allUsers (true when every value is
  a user: kinds is then left empty), and the users <P>uids did not hold (unlisted, nUnlisted), for the
  caller to add to it once its write is accepted.

  Most writes name users only: one SMISMEMBER per BATCH values on <P>uids (the directory's user ids:
  writeUser adds, deleteUser removes), and when every value is in it all are users. Otherwise only the
  values the set does not hold are looked up, in batches: one ZMSCORE per BATCH values on the id sets
  <P>users and <P>groups, which hold exactly the ids whose u:/g: hash exists, and the users found there
  are added to <P>uids by the caller, so a user missing from the set is looked up once, then listed.
  Why a set of its own: SMISMEMBER on it costs Redis about a third of what an EXISTS of each value's <P>u:
  key costs (EXISTS looks up the key, then its expiry); ZMSCORE costs about as much as EXISTS (Redis
  formats each score it returns with snprintf("%.17g")). BATCH stays far below Lua's unpack limit of 8000.

  Redis before 6.2 has neither command: with P (the directory's key prefix) given, it counts the u: hashes
  of a batch with EXISTS and looks up each value of a batch that is not all users; without P the error
  is raised.
]]
local KINDS_BATCH = 1000

local function memberKinds(keys, want, n, P)
  local kinds, unlisted, nUnlisted = {}, {}, 0
  -- the values <P>uids does not hold, for the id-set lookup
  local unknown, nUnknown = {}, 0
  for s = 1, n, KINDS_BATCH do
    local e = math.min(n, s + KINDS_BATCH - 1)
    local hits = (P and redis.pcall or redis.call)('SMISMEMBER', keys.uids, unpack(want, s, e))
    if hits.err then
      local userKeys = {}
      for k = s, e do userKeys[k - s + 1] = P .. 'u:' .. want[k] end
      if redis.call('EXISTS', unpack(userKeys)) < e - s + 1 then
        for k = s, e do nUnknown = nUnknown + 1; unknown[nUnknown] = want[k] end
      end
    else
      for k = 1, #hits do
        if hits[k] == 0 then nUnknown = nUnknown + 1; unknown[nUnknown] = want[s + k - 1] end
      end
    end
  end
  if nUnknown == 0 then return kinds, true, unlisted, 0 end
  local function mark(idSet, keyType, t, list)
    local missing = {}
    for s = 1, #list, KINDS_BATCH do
      local e = math.min(#list, s + KINDS_BATCH - 1)
      local found = (P and redis.pcall or redis.call)('ZMSCORE', idSet, unpack(list, s, e))
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
  -- the values the set holds are users; the others are looked up (a value is either, never both)
  for k = 1, n do kinds[want[k]] = 'U' end
  for k = 1, nUnknown do kinds[unknown[k]] = nil end
  mark(keys.groups, 'g:', 'G', mark(keys.users, 'u:', 'U', unknown))
  for k = 1, nUnknown do
    if kinds[unknown[k]] == 'U' then nUnlisted = nUnlisted + 1; unlisted[nUnlisted] = unknown[k] end
  end
  return kinds, false, unlisted, nUnlisted
end
