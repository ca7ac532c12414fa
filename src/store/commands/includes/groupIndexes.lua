--[[
  A group's non-unique indexes (keys.ts: <P>ix:gns for the lower-cased displayName, <P>ix:gxs for the
  externalId): one lexicographic sorted set each, every member "<value>\0<group id>" with score 0, so one
  ZRANGEBYLEX finds every group holding a value. Beside each set, its hash (<P>ix:gn, <P>ix:gx) is only
  cleared of the group's entry, never written.
  moveGroupIndexes(id, indexes): indexes is a list of {sorted set, hash, value before (nil or '': none),
  value after (nil: leave it out, '': none)}; the group's entry moves from the old value to the new one.
]]
local function moveGroupIndexes(id, indexes)
  for _, ix in ipairs(indexes) do
    local before, after = ix[3], ix[4]
    if before ~= after then
      if before and before ~= '' then
        redis.call('ZREM', ix[1], before .. '\0' .. id)
        if redis.call('HGET', ix[2], before) == id then redis.call('HDEL', ix[2], before) end
      end
      if after and after ~= '' then redis.call('ZADD', ix[1], 0, after .. '\0' .. id) end
    end
  end
end
