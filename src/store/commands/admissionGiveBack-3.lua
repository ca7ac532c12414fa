--[[
  Recovery: puts a member whose job is gone back into the backlog and frees its slot, only when it still
  holds the slot with the admission stamp recovery saw. Recovery reads the stamps, then asks BullMQ whether
  each job exists; a job that finished in between was released meanwhile (or released and admitted again,
  with a new stamp), and must not be put back as if it had been lost.
  KEYS[1] <P>q:backlog, KEYS[2] <P>q:inflight, KEYS[3] <P>q:retrying
  ARGV[1] member, ARGV[2] the stamp recovery saw, ARGV[3] now (ms)
  Returns 1 when given back, else 0.
]]
local m, seen = ARGV[1], tonumber(ARGV[2])
local a, r = redis.call('ZSCORE', KEYS[2], m), redis.call('ZSCORE', KEYS[3], m)
if not ((a and tonumber(a) == seen) or (r and tonumber(r) == seen)) then return 0 end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], m)
redis.call('ZREM', KEYS[2], m)
redis.call('ZREM', KEYS[3], m)
return 1
