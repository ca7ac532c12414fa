--[[
  Adds members to a directory's backlog and admits what its free slots allow, in one command.
  KEYS[1..5] the admission keys (includes/admit.lua)
  ARGV[1] cap, ARGV[2] now (ms), ARGV[3] share grace (ms), then score/member pairs
  Returns admit's answer (includes/admit.lua).
]]
-- @include admit
local zargs = {}
for i = 4, #ARGV do zargs[#zargs + 1] = ARGV[i] end
backlogAdd(KEYS[1], zargs)
return admit(KEYS, ARGV[1], ARGV[2], ARGV[3], '', '')
