-- Write a show's seat map and counters as read from MySQL.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] unix seconds (UTC) until which the map is needed (the show's start plus a day;
-- 0: keep it without expiry), ARGV[2] the least time to live, seconds, ARGV[3] seat
-- count n, ARGV[4 .. 3+2n] pairs seat_id, value; then ARGV[4+2n] zone count m and m
-- pairs zone_code, free; then pairs user_id, count to the end.
-- The time to live is counted on Redis's own clock (TIME), never the caller's: an
-- instance whose clock is days off must not make a map that expires at once or lives
-- for weeks. Keys get max(ARGV[1] - now, ARGV[2]) seconds, set with a relative EXPIRE.
-- Each hash always holds a "_" marker field, so an existing key is never empty and a
-- missing key always means "not loaded". The per-user counts' marker holds the time
-- (Redis's clock, ms) they were last written from MySQL: the order transaction counts
-- a buyer's seats in MySQL only around such a rebuild (services/limit_check.go).
-- When the seat map exists, only what is missing is filled (a concurrent loader or live
-- holds must not be overwritten): missing seat fields, missing zone fields, and the
-- per-user counts when that whole hash is missing. Reply {"FILLED", seat fields filled}.
-- Otherwise everything is written afresh: reply {"LOADED", n}.
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
-- a key that holds anything but a hash is no seat map: it is replaced
for _, k in ipairs({seats, zones, users}) do
  local t = redis.call('TYPE', k).ok
  if t ~= 'hash' and t ~= 'none' then redis.call('DEL', k) end
end
local until_s, min_ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local z = 4 + 2 * n
local m = tonumber(ARGV[z])
local t = redis.call('TIME')
local function expire()
  if until_s > 0 then
    local ttl = math.max(until_s - tonumber(t[1]), min_ttl)
    for _, k in ipairs({seats, zones, users}) do redis.call('EXPIRE', k, ttl) end
  end
end
-- hset_args writes the field/value pairs ARGV[from .. to] into key, 2000 pairs a call:
-- one HSET of many pairs costs far less than one call a pair (a stadium's map is 90,000
-- seats), and unpack may put at most about 8000 values on Lua's stack.
local function hset_args(key, from, to)
  for i = from, to, 4000 do
    redis.call('HSET', key, unpack(ARGV, i, math.min(i + 3999, to)))
  end
end
local function write_users()
  redis.call('HSET', users, '_', string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)))
  hset_args(users, z + 1 + 2 * m, #ARGV)
end
if redis.call('EXISTS', seats) == 1 then
  local filled = 0
  for i = 4, 3 + 2 * n, 2 do
    filled = filled + redis.call('HSETNX', seats, ARGV[i], ARGV[i + 1])
  end
  redis.call('HSETNX', zones, '_', '0')
  for i = z + 1, z + 2 * m, 2 do redis.call('HSETNX', zones, ARGV[i], ARGV[i + 1]) end
  if redis.call('EXISTS', users) == 0 then write_users() end
  expire()
  if filled > 0 then notify(seats, zones, nil) end
  return {'FILLED', filled}
end
redis.call('DEL', seats, zones, users)
redis.call('HSET', seats, '_', 'B')
hset_args(seats, 4, 3 + 2 * n)
redis.call('HSET', zones, '_', '0')
hset_args(zones, z + 1, z + 2 * m)
write_users()
expire()
notify(seats, zones, nil)
return {'LOADED', n}
