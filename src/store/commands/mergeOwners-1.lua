--[[
  Writes a batch of owner entries moved from a platform account's key of earlier releases (named by the
  base URL as typed) into the key of its canonical identity. The old and new keys are in different hash
  slots (Redis Cluster), so the caller removes the batch from the old key after this script: a crash in
  between leaves the entries in both, and the next run writes them again with the same result.

  An owner already recorded under the new key is kept (the first claim there stands; the other
  directory's item then fails with an ownership conflict an operator resolves by hand-over): those
  entries are returned.

  Input:
    KEYS[1]  <kp>:acct:<sha1(account)>:owner:<space>   HASH resource → directory
    ARGV     resource1, owner1, resource2, owner2, …   (at most one batch)

  Output: flat {resource, moved owner, kept owner, ...} of the entries whose owner differed
]]
local conflicts = {}
for i = 1, #ARGV, 2 do
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  if not cur then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  elseif cur ~= ARGV[i + 1] then
    conflicts[#conflicts + 1] = ARGV[i]
    conflicts[#conflicts + 1] = ARGV[i + 1]
    conflicts[#conflicts + 1] = cur
  end
end
return conflicts
