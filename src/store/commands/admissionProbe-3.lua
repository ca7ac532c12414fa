--[[
  What the worker's periodic chores need of one directory, in one command.
  KEYS[1] <P>q:backlog, KEYS[2] <P>q:inflight, KEYS[3] <P>q:retrying
  ARGV[1] before (ms), "" for none
  Returns {backlog size, in flight + retrying, then the members admitted (in flight or retrying) at or
  before ARGV[1], each followed by its admission stamp}.
]]
local out = {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])}
if ARGV[1] ~= '' then
  for k = 2, 3 do
    for _, v in ipairs(redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', ARGV[1], 'WITHSCORES')) do out[#out + 1] = v end
  end
end
return out
