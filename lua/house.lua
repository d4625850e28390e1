-- Block seats of a show as house seats, or unblock them: compare-and-sets on the seat
-- values with the zone free counts moved in the same step.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash
-- ARGV[1] "BLOCK" (free -> blocked) or "UNBLOCK" (blocked -> free),
-- ARGV[2..] pairs: seat_id, zone_code
-- BLOCK is all or nothing: every seat must be free ("F") before the first write, so a
-- seat that a buyer holds or owns, or that is blocked already, is never taken.
--   Replies: {"OK", blocked_count} | {"NOT_LOADED"} (nothing written)
--          | {"TAKEN", seat_id, value, ...} (nothing written; value as found)
-- UNBLOCK frees each seat that is blocked now, seat by seat; a seat with another value
-- (a live order won it, or reconciliation already freed it) is left alone.
--   Replies: {"OK", freed_count} | {"NOT_LOADED"} (nothing written: the next load reads
--   MySQL, where the seats are no longer house seats)
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local op = ARGV[1]
if redis.call('EXISTS', seats) == 0 or redis.call('EXISTS', zones) == 0
    or redis.call('EXISTS', users) == 0 then
  return {'NOT_LOADED'}
end
if op == 'BLOCK' then
  local taken = {}
  for i = 2, #ARGV, 2 do
    local v = redis.call('HGET', seats, ARGV[i])
    if not v then return {'NOT_LOADED'} end
    if v ~= 'F' then
      taken[#taken + 1] = ARGV[i]
      taken[#taken + 1] = v
    end
    if not redis.call('HGET', zones, ARGV[i + 1]) then return {'NOT_LOADED'} end
  end
  if #taken > 0 then
    table.insert(taken, 1, 'TAKEN')
    return taken
  end
  local n, changed = 0, {}
  for i = 2, #ARGV, 2 do
    redis.call('HSET', seats, ARGV[i], 'B')
    redis.call('HINCRBY', zones, ARGV[i + 1], -1)
    n = n + 1
    changed[#changed + 1] = ARGV[i] .. '=B'
  end
  notify(seats, zones, changed)
  return {'OK', tostring(n)}
elseif op == 'UNBLOCK' then
  local n, changed = 0, {}
  for i = 2, #ARGV, 2 do
    if redis.call('HGET', seats, ARGV[i]) == 'B' then
      redis.call('HSET', seats, ARGV[i], 'F')
      redis.call('HINCRBY', zones, ARGV[i + 1], 1)
      n = n + 1
      changed[#changed + 1] = ARGV[i] .. '=F'
    end
  end
  notify(seats, zones, changed)
  return {'OK', tostring(n)}
end
return redis.error_reply('house.lua: unknown operation ' .. tostring(op))
