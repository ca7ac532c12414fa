--[[
  Moves up to a batch of entries of one unique index hash of earlier releases into its non-unique
  sorted set, atomically per batch: each entry is added to the set and removed from the hash in the same
  script, so a crash between two batches loses nothing and a second run finds less (or nothing) to do.

  Input:
    KEYS[1]  <P>ix:ux | <P>ix:gx | <P>ix:gn   the hash of earlier releases: value → id
    KEYS[2]  <P>ix:uxs | <P>ix:gxs | <P>ix:gns the sorted set: "<value>\0<id>", all scores 0
    ARGV[1]  HSCAN cursor ("0" to start)
    ARGV[2]  entries per batch (HSCAN COUNT hint)

  Output: {nextCursor, moved, left}  left = entries still in the hash ("0" once the hash is gone)
]]
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return {'0', 0, 0} end
local scan = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local items, moved = scan[2], 0
for i = 1, #items, 2 do
  redis.call('ZADD', KEYS[2], 0, items[i] .. '\0' .. items[i + 1])
  redis.call('HDEL', KEYS[1], items[i])
  moved = moved + 1
end
return {scan[1], moved, redis.call('HLEN', KEYS[1])}
