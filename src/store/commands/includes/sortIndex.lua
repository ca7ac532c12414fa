--[[
  Sort indexes (keys.ts: <P>sx:u:un, <P>sx:u:dn, <P>sx:u:m, <P>sx:g:dn, <P>sx:g:m): one lexicographic
  sorted set per sortable attribute, every member "<key>\0<id>" with score 0, so rank order is sort order
  and ties are broken by id. Keys: lower-cased userName / displayName as the writer passed them, the
  lastModified timestamp as stored (ISO-8601 UTC, whose text order is time order); a missing value is
  "\255", which sorts after every UTF-8 text. Every script that changes one of these attributes moves the
  entry with `sortEntry`; records older than the indexes are added by sort-index-backfill.ts.
]]
local function sortMember(v, id)
  if v == nil or v == false then return nil end
  if v == '' then v = '\255' end
  return v .. '\0' .. id
end

-- moves id's entry in sort index `key` from value `old` (nil: none yet) to `new` (nil: remove)
local function sortEntry(key, old, new, id)
  local o, n = sortMember(old, id), sortMember(new, id)
  if o == n then return end
  if o then redis.call('ZREM', key, o) end
  if n then redis.call('ZADD', key, 0, n) end
end

-- a group changed by a member's removal: its lastModified becomes `now` (hash and sort index)
local function touchGroup(P, gid, now)
  local key = P .. 'g:' .. gid
  sortEntry(P .. 'sx:g:m', redis.call('HGET', key, 'm'), now, gid)
  redis.call('HSET', key, 'm', now)
end
