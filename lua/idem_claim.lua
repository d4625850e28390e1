-- Claim one user's Idempotency-Key for a create: take its lock and mark the key as used,
-- in one step.
-- KEYS[1] lock key, KEYS[2] "seen" marker (same hash slot); ARGV[1] the holder's random
-- token, ARGV[2] lock time in ms, ARGV[3] marker time in seconds.
-- Reply: {0, 0} when another request holds the lock (nothing is written);
--        {1, first} when the lock is taken, first = 1 when the key was not marked before.
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then
  return {0, 0}
end
local first = 0
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', tonumber(ARGV[3])) then first = 1 end
return {1, first}
