--[[
  drainMemberOf(P, limit): applies pending membership changes of <P>mgq to the reverse index
  <P>mg:<member> (the groups each user or group is a member of), oldest first, up to `limit` entries
  (all when limit is nil), and removes them from <P>mgq. Returns the number of entries left.

  writeGroup appends one entry per write that changed members — fields g (group id), a (values added),
  r (values removed), each "\n"-separated — instead of touching one reverse-index set per member on the
  request path. Every script that reads the reverse index drains first, in the same atomic step, so
  readers always see it exact. Entries are applied in order, as the writes happened.
]]
local function drainMemberOf(P, limit)
  local q = P .. 'mgq'
  local entries
  if limit then entries = redis.call('XRANGE', q, '-', '+', 'COUNT', limit) else entries = redis.call('XRANGE', q, '-', '+') end
  if #entries == 0 then return 0 end
  for _, entry in ipairs(entries) do
    local f, g = entry[2], nil
    for i = 1, #f, 2 do if f[i] == 'g' then g = f[i + 1] end end
    for i = 1, #f, 2 do
      local cmd = (f[i] == 'a' and 'SADD') or (f[i] == 'r' and 'SREM') or nil
      if cmd then for v in string.gmatch(f[i + 1], '[^\n]+') do redis.call(cmd, P .. 'mg:' .. v, g) end end
    end
  end
  if not limit then
    redis.call('DEL', q)
    return 0
  end
  local ids = {}
  for i, entry in ipairs(entries) do ids[i] = entry[1] end
  redis.call('XDEL', q, unpack(ids))
  return redis.call('XLEN', q)
end
