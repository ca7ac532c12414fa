--[[
  Counts an externalId on a platform account's external-user set unless the set is full (external-user-store.ts).

  Input:
    KEYS[1]  <kp>:acct:<sha1(account)>:external-users   SET
    ARGV[1]  externalId
    ARGV[2]  limit

  Output: {ok (1|0), usage after, added (1 when this call counted it)}
]]
local n = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, n, 0} end
if n >= tonumber(ARGV[2]) then return {0, n, 0} end
redis.call('SADD', KEYS[1], ARGV[1])
return {1, n + 1, 1}
