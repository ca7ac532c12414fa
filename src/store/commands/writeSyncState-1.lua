--[[
  Writes fields of one resource's sync state and, when a status is given, moves the resource into that
  status set and out of the others, in one step and one command (a MULTI built by ioredis cost a worker
  more CPU than the reconcile it recorded: issue 11 item 6).

  Input:
    KEYS[1]  <P>s:<k>:<id>  the resource's sync-state hash
    ARGV[1]  <P>s:st:       prefix of the status sets
    ARGV[2]  "<k>:<id>"     the resource as a member of the status sets
    ARGV[3]  the new status ("" : status sets untouched)
    ARGV[4]  the statuses, comma-separated (SYNC_STATUSES in sync-state.ts)
    ARGV[5]  n: how many fields to set
    ARGV[6 … 5+2n]   field, value pairs to set
    ARGV[6+2n …]     fields to delete

  Output: 1
]]
local status = ARGV[3]
if status ~= '' then
  for s in string.gmatch(ARGV[4], '[^,]+') do
    if s == status then redis.call('SADD', ARGV[1] .. s, ARGV[2]) else redis.call('SREM', ARGV[1] .. s, ARGV[2]) end
  end
end
local n = tonumber(ARGV[5])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 6, 5 + 2 * n)) end
if #ARGV > 5 + 2 * n then redis.call('HDEL', KEYS[1], unpack(ARGV, 6 + 2 * n, #ARGV)) end
return 1
