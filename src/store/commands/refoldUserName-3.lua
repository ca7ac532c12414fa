--[[
  Moves one user's entry of the unique userName index from the key earlier releases wrote (the userName
  lower-cased) to its folded form (NFC and full case folding: src/store/user-name-fold.ts), with the user's
  stored `un` and its userName sort-index entry. Run at start by index-migration.ts, one entry at a time
  for the few names whose form changed (non-ASCII); idempotent.

  Input:
    KEYS[1]  <P>ix:un     HASH  name → user id
    KEYS[2]  <P>u:<id>    HASH  the user (field `un`)
    KEYS[3]  <P>sx:u:un   ZSET  "<name>\0<id>" sort index
    ARGV[1]  the old key, ARGV[2] the folded key, ARGV[3] the user id

  Output: 1 moved; 0 nothing to do (the entry changed meanwhile); -1 another user holds the folded name
          already (two existing users that are one name now: both kept as they are, reported)
]]
-- @include sortIndex
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[3] then return 0 end
local owner = redis.call('HGET', KEYS[1], ARGV[2])
if owner and owner ~= ARGV[3] then return -1 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
if redis.call('HGET', KEYS[2], 'un') == ARGV[1] then
  redis.call('HSET', KEYS[2], 'un', ARGV[2])
  sortEntry(KEYS[3], ARGV[1], ARGV[2], ARGV[3])
end
return 1
