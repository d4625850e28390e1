-- Write a show's voucher uses as MySQL counts them (voucher_uses per voucher).
-- KEYS[1] the show's seats hash (the uses live as long as it: its TTL is copied),
-- KEYS[2] the show's voucher uses hash (voucher id -> seats; '_' marks it loaded).
-- ARGV[1] "fill": write only when the hash has no marker (a map load), "set": replace it
-- (reconciliation); ARGV[2..] pairs: voucher_id, uses.
-- Reply: {1} written, {0} left as it was (its TTL renewed all the same) or no map.
local seats, vouchers = KEYS[1], KEYS[2]
if redis.call('EXISTS', seats) == 0 then return {0} end
local written = 0
if ARGV[1] ~= 'fill' or redis.call('HEXISTS', vouchers, '_') == 0 then
  redis.call('DEL', vouchers)
  redis.call('HSET', vouchers, '_', '1')
  for i = 2, #ARGV, 2 do
    if tonumber(ARGV[i + 1]) > 0 then redis.call('HSET', vouchers, ARGV[i], ARGV[i + 1]) end
  end
  written = 1
end
local ttl = redis.call('PTTL', seats)
if ttl > 0 then redis.call('PEXPIRE', vouchers, ttl) end
return {written}
