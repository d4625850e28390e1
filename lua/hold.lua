-- Hold a batch of seats for one order, all or nothing.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] order_no, ARGV[2] user_id, ARGV[3] purchase limit,
-- ARGV[4..] pairs: seat_id, zone_code
-- Replies: {"OK", users marker (the per-user counts' rebuild time, see load.lua)} | {"NOT_LOADED"} | {"TAKEN", seat_id, ...} | {"LIMIT", held_now}
--        | {"SOLD_OUT", zone_code} | {"DUP", seat_id}
-- Every check runs before the first write: Redis never rolls back a script's writes.
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local owner, user, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('EXISTS', seats) == 0 or redis.call('EXISTS', zones) == 0
    or redis.call('EXISTS', users) == 0 then
  return {'NOT_LOADED'}
end
local n = (#ARGV - 3) / 2
local taken, need, seen = {}, {}, {}
for i = 0, n - 1 do
  local id, zone = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
  if seen[id] then return {'DUP', id} end
  seen[id] = true
  local v = redis.call('HGET', seats, id)
  if not v then return {'NOT_LOADED'} end
  if v ~= 'F' then taken[#taken + 1] = id end
  need[zone] = (need[zone] or 0) + 1
end
if #taken > 0 then
  table.insert(taken, 1, 'TAKEN')
  return taken
end
local have = tonumber(redis.call('HGET', users, user) or '0')
if have + n > limit then return {'LIMIT', tostring(have)} end
for zone, k in pairs(need) do
  local free = redis.call('HGET', zones, zone)
  if not free then return {'NOT_LOADED'} end
  if tonumber(free) < k then return {'SOLD_OUT', zone} end
end
local val = 'H|' .. owner .. '|' .. user
for i = 0, n - 1 do redis.call('HSET', seats, ARGV[4 + 2 * i], val) end
for zone, k in pairs(need) do redis.call('HINCRBY', zones, zone, -k) end
redis.call('HINCRBY', users, user, n)
local changed = {}
for i = 0, n - 1 do changed[#changed + 1] = ARGV[4 + 2 * i] .. '=H' end
notify(seats, zones, changed)
return {'OK', redis.call('HGET', users, '_') or '0'}
