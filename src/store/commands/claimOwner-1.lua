--[[
  Takes a platform resource for a directory when no directory owns it yet (ownership.ts).

  Input:
    KEYS[1]  <kp>:acct:<sha1(account)>:owner:<space>   HASH resource → directory
    ARGV[1]  resource
    ARGV[2]  directory

  Output: the resource's owner (ARGV[2] when it was free)
]]
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
