--[[
  Lets go of a platform name a resource holds (name-claims.ts).

  Input:
    KEYS[1]  <P>s:claim:<space>     HASH lower(name) → id holding it
    KEYS[2]  <P>s:claimed:<space>   HASH id → lower(name) it holds
    ARGV[1]  id
    ARGV[2]  name (lower-cased), or "" for the one the id holds (the id is then forgotten too)

  Output: the name let go ("" none)
]]
local name = ARGV[2]
if name == '' then
  name = redis.call('HGET', KEYS[2], ARGV[1])
  if not name then return '' end
  redis.call('HDEL', KEYS[2], ARGV[1])
end
if redis.call('HGET', KEYS[1], name) == ARGV[1] then
  redis.call('HDEL', KEYS[1], name)
  return name
end
return ''
