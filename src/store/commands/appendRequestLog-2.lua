--[[
  Appends entries to a directory's SCIM request log and trims the oldest entries past its age or size.
  KEYS[1] the log (STREAM: fields r = request id, s = entry size in bytes, d = the entry as JSON)
  KEYS[2] its index (HASH: request id -> entry id, and ":bytes" -> the sum of the entries' sizes)
  ARGV[1] most bytes kept, ARGV[2] oldest time kept (ms), ARGV[3] most entries trimmed by this call,
  ARGV[4] TTL of both keys (ms), then for each entry: its JSON, its request id ('' for none), its size
  Returns the id of the last entry added. Each call trims at most ARGV[3] entries (bounded work; the caller
  passes a bound that grows with the entries it adds, so the log converges to its limits). Both keys expire
  when the directory has been quiet for the retention: a directory that stops logging keeps nothing past it.
]]
local added = 0
local id = nil
for i = 5, #ARGV, 3 do
  id = redis.call('XADD', KEYS[1], '*', 'r', ARGV[i + 1], 's', ARGV[i + 2], 'd', ARGV[i])
  if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[2], ARGV[i + 1], id) end
  added = added + tonumber(ARGV[i + 2])
end
local total = redis.call('HINCRBY', KEYS[2], ':bytes', added)
local maxBytes = tonumber(ARGV[1])
local minMs = tonumber(ARGV[2])
local function ms(entryId) return tonumber(string.match(entryId, '^(%d+)')) end

local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
if oldest and oldest[1] ~= id and (total > maxBytes or ms(oldest[1]) < minMs) then
  local removedBytes = 0
  local last = nil
  for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', tonumber(ARGV[3]))) do
    if e[1] == id or (total - removedBytes <= maxBytes and ms(e[1]) >= minMs) then break end
    local f = e[2]
    local rid, size = '', 0
    for j = 1, #f, 2 do
      if f[j] == 'r' then rid = f[j + 1] elseif f[j] == 's' then size = tonumber(f[j + 1]) end
    end
    if rid ~= '' and redis.call('HGET', KEYS[2], rid) == e[1] then redis.call('HDEL', KEYS[2], rid) end
    removedBytes = removedBytes + size
    last = e[1]
  end
  if last then
    local t, seq = string.match(last, '^(%d+)-(%d+)$')
    redis.call('XTRIM', KEYS[1], 'MINID', t .. '-' .. tostring(tonumber(seq) + 1))
    redis.call('HINCRBY', KEYS[2], ':bytes', -removedBytes)
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return id
