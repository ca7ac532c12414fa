--[[
  Hands one platform resource of an account's owner map to another directory (the operator's hand-over,
  src/sync/ownership-handover.ts). A resource no directory manages is not handed over and nothing is
  written: the directory that touches it next takes it anyway, and a mistyped id must not leave an entry.

  Input:
    KEYS[1]  <kp>:acct:<sha1(account)>:owner:<space>   HASH resource → directory
    ARGV[1]  resource
    ARGV[2]  the directory it goes to
    ARGV[3]  the directory that must own it now ("" any)

  Output: {1, previous owner}  handed over
          {0, current owner}   the expected owner is not it
          {-1, ""}             no directory manages the resource
]]
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return {-1, ''} end
if ARGV[3] ~= '' and cur ~= ARGV[3] then return {0, cur} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {1, cur}
