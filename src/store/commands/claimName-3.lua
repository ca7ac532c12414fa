--[[
  Claims a platform name for a resource of one directory (name-claims.ts). The name the resource held
  before stays held until it lets it go, so nobody takes it while the platform still carries it.

  Input:
    KEYS[1]  <P>s:claim:<space>           HASH lower(name) → id holding it
    KEYS[2]  <P>s:claimed:<space>         HASH id → lower(name) it holds
    KEYS[3]  <P>s:claim-wait:<space>:<n>  SET  ids refused the name
    ARGV[1]  id
    ARGV[2]  name (lower-cased)
    ARGV[3]  a holder that may be displaced ("" none)

  Output: {1, the name the id held before or ""} when the id holds the name; {0, holder} when another holds it
]]
local h = redis.call('HGET', KEYS[1], ARGV[2])
if h and h ~= ARGV[1] and h ~= ARGV[3] then
  redis.call('SADD', KEYS[3], ARGV[1])
  return {0, h}
end
if h and h ~= ARGV[1] and redis.call('HGET', KEYS[2], h) == ARGV[2] then redis.call('HDEL', KEYS[2], h) end
local old = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[1])
if old and old ~= ARGV[2] then return {1, old} end
return {1, ''}
