--[[
  Adds one slice of records that predate the sort indexes (includes/sortIndex.lua) to them. Atomic per
  slice, so it never races a write: a record written since the indexes exist already has its entry and
  gets the same member again (no change); a record deleted meanwhile is skipped.

  Input (numKeys = k + number of records):
    KEYS[1..k]    the kind's sort indexes (<P>sx:u:un, <P>sx:u:dn, <P>sx:u:m or <P>sx:g:dn, <P>sx:g:m)
    KEYS[k+1..]   the records' hashes (<P>u:<id> or <P>g:<id>), at most 500
    ARGV[1]       k
    ARGV[2..k+1]  the hash field each index sorts by, in KEYS order ("un", "n", "m")
    ARGV[k+2..]   the records' ids, in KEYS order

  Output: the number of entries added.
]]
local k = tonumber(ARGV[1])
local fields = {}
for i = 1, k do fields[i] = ARGV[i + 1] end
local added = 0
for j = k + 1, #KEYS do
  local id = ARGV[j + 1]
  if redis.call('EXISTS', KEYS[j]) == 1 then
    local vals = redis.call('HMGET', KEYS[j], unpack(fields))
    for i = 1, k do
      local v = vals[i] or ''
      if v == '' then v = '\255' end
      added = added + redis.call('ZADD', KEYS[i], 0, v .. '\0' .. id)
    end
  end
end
return added
