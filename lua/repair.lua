-- Repair one show's seat map for reconciliation: compare-and-set seat values, then
-- recompute the zone free counts and per-user counts from the seat values.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash,
-- KEYS[4] the show's fence (the highest reconciliation lease token that wrote here)
-- ARGV[1] lease token (a run holding an older token than the fence writes nothing),
-- ARGV[2] fence lifetime in seconds, ARGV[3] number of repairs n,
-- ARGV[4 .. 3+3n] triples: seat_id, value expected now ("" = field missing), new value
-- ("" = remove the field);
-- then pairs seat_id, zone_code of every sellable seat of the hall to the end.
-- A repair whose seat no longer holds the expected value is skipped: a buyer or an
-- order transition moved it since it was read, and the next run looks again.
-- Replies: {"FENCED"} | {"NOT_LOADED"} (nothing written) |
-- {"OK", ("SET"|"SKIP", seat_id)..., ("ZONE", code, old, new)..., ("USER", id, old, new)...}
-- where old is "" when the field was missing and new is "" when it was removed (a zone
-- field that is no zone of the hall's sellable seats).
local seats, zones, users, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token = tonumber(ARGV[1])
local seen = tonumber(redis.call('GET', fence) or '0')
if token < seen then return {'FENCED'} end
if redis.call('EXISTS', seats) == 0 then return {'NOT_LOADED'} end
redis.call('SET', fence, ARGV[1], 'EX', tonumber(ARGV[2]))
local out, repaired = {'OK'}, false
local n = tonumber(ARGV[3])
for i = 4, 3 + 3 * n, 3 do
  local id, want, new = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local cur = redis.call('HGET', seats, id) or ''
  if cur == want then
    if new == '' then redis.call('HDEL', seats, id) else redis.call('HSET', seats, id, new) end
    out[#out + 1] = 'SET'
    repaired = true
  else
    out[#out + 1] = 'SKIP'
  end
  out[#out + 1] = id
end
-- counters follow from the seat values: free seats per zone, held or sold per user
local free, owned = {}, {}
for i = 4 + 3 * n, #ARGV, 2 do
  local zone = ARGV[i + 1]
  free[zone] = free[zone] or 0
  if redis.call('HGET', seats, ARGV[i]) == 'F' then free[zone] = free[zone] + 1 end
end
local all = redis.call('HGETALL', seats)
for i = 1, #all, 2 do
  local user = string.match(all[i + 1], '^[HS]|[^|]+|(.+)$')
  if user then owned[user] = (owned[user] or 0) + 1 end
end
local ttl = redis.call('PTTL', seats)
for _, k in ipairs({zones, users}) do
  if redis.call('HSETNX', k, '_', '0') == 1 and ttl > 0 then redis.call('PEXPIRE', k, ttl) end
end
for zone, want in pairs(free) do
  local cur = redis.call('HGET', zones, zone) or ''
  if cur ~= tostring(want) then
    redis.call('HSET', zones, zone, want)
    out[#out + 1] = 'ZONE'; out[#out + 1] = zone; out[#out + 1] = cur; out[#out + 1] = tostring(want)
  end
end
local zstored = redis.call('HGETALL', zones)
for i = 1, #zstored, 2 do
  local zone = zstored[i]
  if zone ~= '_' and not free[zone] then
    redis.call('HDEL', zones, zone)
    out[#out + 1] = 'ZONE'; out[#out + 1] = zone; out[#out + 1] = zstored[i + 1]; out[#out + 1] = ''
  end
end
local stored = redis.call('HGETALL', users)
for i = 1, #stored, 2 do
  local user, cur = stored[i], stored[i + 1]
  if user ~= '_' and not owned[user] and cur ~= '0' then
    redis.call('HSET', users, user, 0)
    out[#out + 1] = 'USER'; out[#out + 1] = user; out[#out + 1] = cur; out[#out + 1] = '0'
  end
end
for user, want in pairs(owned) do
  local cur = redis.call('HGET', users, user) or ''
  if cur ~= tostring(want) then
    redis.call('HSET', users, user, want)
    out[#out + 1] = 'USER'; out[#out + 1] = user; out[#out + 1] = cur; out[#out + 1] = tostring(want)
  end
end
-- per-user counts rewritten: mark the rebuild time (see load.lua), so orders held
-- around it count the buyer's seats in MySQL before they commit
local users_changed = false
for i = 2, #out do if out[i] == 'USER' then users_changed = true break end end
if users_changed or repaired then
  local t = redis.call('TIME')
  redis.call('HSET', users, '_', string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)))
end
if repaired then notify(seats, zones, nil) end
return out
