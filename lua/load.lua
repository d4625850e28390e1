-- Write a show's seat map and counters as read from MySQL.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] unix seconds at which the keys expire (0: never), ARGV[2] seat count n,
-- ARGV[3 .. 2+2n] pairs seat_id, value; then ARGV[3+2n] zone count m and m pairs
-- zone_code, free; then pairs user_id, count to the end.
-- When the map and zone counts exist already, only missing seat fields are filled (a
-- concurrent loader or live holds must not be overwritten): reply {"FILLED", k}.
-- Otherwise everything is written afresh: reply {"LOADED", n}.
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local exp = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
if redis.call('EXISTS', seats) == 1 and redis.call('EXISTS', zones) == 1 then
  local filled = 0
  for i = 3, 2 + 2 * n, 2 do
    filled = filled + redis.call('HSETNX', seats, ARGV[i], ARGV[i + 1])
  end
  return {'FILLED', filled}
end
redis.call('DEL', seats, zones, users)
for i = 3, 2 + 2 * n, 2 do redis.call('HSET', seats, ARGV[i], ARGV[i + 1]) end
local z = 3 + 2 * n
local m = tonumber(ARGV[z])
for i = z + 1, z + 2 * m, 2 do redis.call('HSET', zones, ARGV[i], ARGV[i + 1]) end
for i = z + 1 + 2 * m, #ARGV, 2 do redis.call('HSET', users, ARGV[i], ARGV[i + 1]) end
if n == 0 then redis.call('HSET', seats, '_', 'B') end
if m == 0 then redis.call('HSET', zones, '_', '0') end
if exp > 0 then
  for _, k in ipairs({seats, zones, users}) do
    if redis.call('EXISTS', k) == 1 then redis.call('EXPIREAT', k, exp) end
  end
end
return {'LOADED', n}
