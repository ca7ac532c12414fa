--[[
  Writes a flush's values of one directory's per-minute counters in one call (minute-counters.ts); an
  unbuffered gauge is a call with one value.

  Input:
    KEYS[1..n]  <P>c:<series>, series hashes of one directory (minute → value)
    ARGV        for each value: the index of its key in KEYS, its minute, its value, and "max" (a gauge:
                keeps the minute's highest) or "add" (a counter)

  Output: 1
]]
for i = 1, #ARGV, 4 do
  local key = KEYS[tonumber(ARGV[i])]
  if ARGV[i + 3] == 'max' then
    local cur = tonumber(redis.call('HGET', key, ARGV[i + 1]) or '-1')
    if tonumber(ARGV[i + 2]) > cur then redis.call('HSET', key, ARGV[i + 1], ARGV[i + 2]) end
  else
    redis.call('HINCRBY', key, ARGV[i + 1], ARGV[i + 2])
  end
end
return 1
