-- Give back an Idempotency-Key's lock (only its holder's token frees it) and, after a
-- failed create (failures are not remembered), drop the "seen" marker its claim wrote
-- (order.lua writes the holder's token as the marker's value), so the key is new again.
-- KEYS[1] lock key, KEYS[2] "seen" marker (same hash slot); ARGV[1] the holder's token,
-- ARGV[2] "1" to drop the marker.
-- Reply: 1 when the lock was freed, 0 when another holder had it (expired and retaken).
if ARGV[2] == '1' and redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
