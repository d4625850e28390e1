-- Mark the seats of a paid order sold. MySQL already records the order as paid (and its
-- unique key on live seats guarantees no other live order has them), so a seat that is
-- free here (Redis lost the hold) is taken back for this order with its counters.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] order_no, ARGV[2] user_id, ARGV[3..] pairs: seat_id, zone_code
-- Replies: {"NOT_LOADED"} (nothing written) | {"OK", conflicting seat_id, ...}
-- A conflicting seat (held or sold by another order) is left alone for reconciliation.
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local owner, user = ARGV[1], ARGV[2]
if redis.call('EXISTS', seats) == 0 or redis.call('EXISTS', zones) == 0
    or redis.call('EXISTS', users) == 0 then
  return {'NOT_LOADED'}
end
for i = 3, #ARGV, 2 do
  if not redis.call('HGET', seats, ARGV[i]) then return {'NOT_LOADED'} end
end
local out, changed = {'OK'}, {}
local val = 'S|' .. owner .. '|' .. user
for i = 3, #ARGV, 2 do
  local id, zone = ARGV[i], ARGV[i + 1]
  local v = redis.call('HGET', seats, id)
  local state, no = string.match(v, '^([HS])|([^|]+)|')
  if state and no == owner then
    if state == 'H' then
      redis.call('HSET', seats, id, val)
      changed[#changed + 1] = id .. '=S'
    end
  elseif v == 'F' then
    redis.call('HSET', seats, id, val)
    changed[#changed + 1] = id .. '=S'
    redis.call('HINCRBY', zones, zone, -1)
    redis.call('HINCRBY', users, user, 1)
  else
    out[#out + 1] = id
  end
end
notify(seats, zones, changed)
return out
