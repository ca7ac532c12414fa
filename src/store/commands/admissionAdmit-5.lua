--[[
  Frees or lends one member's slot and admits what the directory's free slots allow, in one command
  (see includes/admit.lua).
  KEYS[1..5] the admission keys (includes/admit.lua)
  ARGV[1] cap (the directory's concurrency; 0 admits nothing), ARGV[2] now (ms), ARGV[3] share grace (ms),
  ARGV[4] op ("release", "retrying", "waiting" or ""), ARGV[5] member ("" for none)
  Returns admit's answer (includes/admit.lua).
]]
-- @include admit
return admit(KEYS, ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
