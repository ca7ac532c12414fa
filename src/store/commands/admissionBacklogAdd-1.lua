--[[
  Adds members to a directory's backlog (a member already there keeps its place).
  KEYS[1] <P>q:backlog; ARGV score/member pairs.
]]
-- @include admit
backlogAdd(KEYS[1], ARGV)
return 1
