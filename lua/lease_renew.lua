-- Extend or give back the reconciliation lease, only while this token still holds it.
-- KEYS[1] lease key; ARGV[1] token, ARGV[2] new lease time in ms, or 0 to release.
-- Reply: 1 when the token held the lease, 0 when it was lost.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) == 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return 1
