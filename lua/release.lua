-- Free the seats one order owns: a compare-and-set on the owner, seat by seat, so a
-- late or repeated release never frees a seat another order holds now.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash,
-- KEYS[4] (optional) the show's voucher uses (see order.lua)
-- ARGV[1] order_no, ARGV[2] states to release from: "H" (held) or "HS" (held or sold),
-- ARGV[3..] pairs: seat_id, zone_code, or "zone_code#voucher_id" for a seat the order's
-- voucher covers: its use is given back with the seat
-- Reply: {released_count}. Counters move only for seats this call actually freed, so
-- they are restored exactly once however often the release runs.
local seats, zones, users, vouchers = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, from = ARGV[1], ARGV[2]
local released, changed = 0, {}
for i = 3, #ARGV, 2 do
  local id, zone, voucher = ARGV[i], string.match(ARGV[i + 1], '^([^#]*)#?(.*)$')
  local v = redis.call('HGET', seats, id)
  if v then
    local state, no, user = string.match(v, '^([HS])|([^|]+)|(.+)$')
    if state and no == owner and string.find(from, state, 1, true) then
      redis.call('HSET', seats, id, 'F')
      redis.call('HINCRBY', zones, zone, 1)
      redis.call('HINCRBY', users, user, -1)
      if vouchers and voucher ~= '' and tonumber(redis.call('HGET', vouchers, voucher) or '0') > 0 then
        if redis.call('HINCRBY', vouchers, voucher, -1) <= 0 then redis.call('HDEL', vouchers, voucher) end
      end
      released = released + 1
      changed[#changed + 1] = id .. '=F'
    end
  end
end
notify(seats, zones, changed)
return {released}
