--[[
  Appends events to one resource's activity trail in order, keeps the newest `maxEvents`, and pushes the
  trail's expiry back (src/store/activity-store.ts), in one command.

  Input:
    KEYS[1]  <P>a:<k>:<id>  the trail (STREAM, field e)
    ARGV[1]  maxEvents
    ARGV[2]  retention (seconds)
    ARGV[3…] the events, as JSON

  Output: 1
]]
for i = 3, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'e', ARGV[i])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
