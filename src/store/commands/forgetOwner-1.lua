--[[
  Forgets the owner of a platform resource that is gone, if it is the directory named (ownership.ts).

  Input:
    KEYS[1]  <kp>:acct:<sha1(account)>:owner:<space>   HASH resource → directory
    ARGV[1]  resource
    ARGV[2]  directory

  Output: 1 when forgotten, else 0
]]
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
