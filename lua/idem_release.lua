-- Give back Idempotency-Key locks (only a holder's token frees its lock) and, after a
-- failed create (failures are not remembered), drop the "seen" marker its claim wrote
-- (order.lua writes the holder's token as the marker's value), so the key is new again.
-- One call gives back any number of keys of one hash slot (one show): a batch's keys.
-- KEYS[2i-1] a lock key, KEYS[2i] its "seen" marker; ARGV[2i-1] that lock's holder's
-- token, ARGV[2i] "1" to drop the marker.
-- Reply: how many locks were freed (a lock another holder had, expired and retaken,
-- is left alone).
local freed = 0
for i = 1, #KEYS, 2 do
  local token = ARGV[i]
  if ARGV[i + 1] == '1' and redis.call('GET', KEYS[i + 1]) == token then redis.call('DEL', KEYS[i + 1]) end
  if redis.call('GET', KEYS[i]) == token then
    redis.call('DEL', KEYS[i])
    freed = freed + 1
  end
end
return freed
