-- Move one live order onto other seats, in one atomic step on the show's slot: the new
-- seats are taken for the order before its old ones are let go, so a seat is never free
-- for both and never lost by both.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] "H" (a pending order: the new seats are held) or "S" (a paid order: sold),
-- ARGV[2] m, how many old seats follow, ARGV[3 .. 2 + 2m] pairs: old seat_id, zone_code,
-- then hold.lua's ARGV for the new seats (order_no, user_id, "limit|rule|rows|flags|m",
-- pairs, row strings, the m old seat ids: the single-seat rule counts them free).
-- Replies: hold.lua's, and after "OK" nothing else changed: {"OK", marker, stranded...,
-- "|", freed count}. A refusal writes nothing (hold checks everything first).
-- The old seats are freed owner-checked (invariant 4): one another order holds now, or
-- one already free, is left as it is. Counters move only for seats that changed; the
-- user's count goes up by the new seats and down by the freed ones, and the voucher
-- uses stay (same count of seats).
local state, m = ARGV[1], tonumber(ARGV[2])
local old = {}
for i = 0, m - 1 do old[#old + 1] = {id = ARGV[3 + 2 * i], zone = ARGV[4 + 2 * i]} end
local holdArgv = {}
for i = 3 + 2 * m, #ARGV do holdArgv[#holdArgv + 1] = ARGV[i] end
local out = hold(KEYS, holdArgv, nil)
if out[1] ~= 'OK' then return out end
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local owner, user = holdArgv[1], holdArgv[2]
local opts = {}
for part in string.gmatch(holdArgv[3] .. '|', '([^|]*)|') do opts[#opts + 1] = part end
local n = (#holdArgv - 3 - (tonumber(opts[3] or '0') or 0) - m) / 2
local changed = {}
if state == 'S' then
  local val = 'S|' .. owner .. '|' .. user
  for i = 0, n - 1 do
    redis.call('HSET', seats, holdArgv[4 + 2 * i], val)
    changed[#changed + 1] = holdArgv[4 + 2 * i] .. '=S'
  end
end
local freed = 0
for _, s in ipairs(old) do
  local v = redis.call('HGET', seats, s.id)
  local st, no = string.match(v or '', '^([HS])|([^|]+)|')
  if st and no == owner then
    redis.call('HSET', seats, s.id, 'F')
    redis.call('HINCRBY', zones, s.zone, 1)
    redis.call('HINCRBY', users, user, -1)
    freed = freed + 1
    changed[#changed + 1] = s.id .. '=F'
  end
end
notify(seats, zones, changed)
out[#out + 1] = '|'
out[#out + 1] = tostring(freed)
return out
