--[[
  Writes fields of one resource's sync state and, when a status is given, moves the resource into that
  status set and out of the others, in one step and one command (sync-state.ts).

  Input (P = "<keyPrefix>:{<directory>}:", sync-state-keys.ts):
    KEYS[1]     <P>s:<k>:<id>  the resource's sync-state hash
    KEYS[2..5]  <P>s:st:<status>, the status sets (pending, synced, failed, deprovisioned)
    ARGV[1]     "<k>:<id>", the resource as a member of the status sets
    ARGV[2]     the new status as the index of its set in KEYS (2..5), "0": status sets untouched
    ARGV[3]     n: how many fields to set
    ARGV[4 … 3+2n]   field, value pairs to set
    ARGV[4+2n …]     fields to delete

  Output: 1
]]
local status = tonumber(ARGV[2])
if status > 0 then
  for i = 2, #KEYS do
    if i == status then redis.call('SADD', KEYS[i], ARGV[1]) else redis.call('SREM', KEYS[i], ARGV[1]) end
  end
end
local n = tonumber(ARGV[3])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + 2 * n)) end
if #ARGV > 3 + 2 * n then redis.call('HDEL', KEYS[1], unpack(ARGV, 4 + 2 * n, #ARGV)) end
return 1
