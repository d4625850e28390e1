-- The registry of live instances (store.Instances): each instance beats every 200 ms,
-- and reconciliation asks it whether a hold without an order may still be committing.
-- KEYS[1] the registry hash: "_born" = Redis ms when it was made, "_epoch" = the proof
-- counter, and per instance id "<ms>|<epoch>|<oldest>" (ms: Redis time of its last beat;
-- epoch: the counter it had seen before it counted its creates in flight; oldest: the ms
-- in the order number of its oldest create in flight, 0 for none), or "D|<ms>" once its
-- beats lapsed.
-- ARGV[1] mode. "beat": ARGV[2] id, ARGV[3] epoch seen, ARGV[4] oldest, ARGV[5] lapse ms
-- (an instance silent that long is dead), ARGV[6] ms after which a dead one is forgotten;
-- reply {epoch, 1 when this beat made the registry (it was lost) else 0, ids of the
-- instances found lapsed now...}; each lapse is reported once, to one beat.
-- "bump": a new epoch, at least Redis's clock in ms, so it grows even across a registry
-- lost in a flush or a failover; reply the epoch.
-- "read": reply {Redis ms now, field, value, field, value, ...}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key, mode = KEYS[1], ARGV[1]
if mode == 'bump' then
  local epoch = math.max(tonumber(redis.call('HGET', key, '_epoch') or '0') + 1, now)
  redis.call('HSET', key, '_epoch', string.format('%d', epoch))
  return epoch
end
if mode == 'read' then
  local out = {string.format('%d', now)}
  local all = redis.call('HGETALL', key)
  for i = 1, #all do out[#out + 1] = all[i] end
  return out
end
local id, lapse, forget = ARGV[2], tonumber(ARGV[5]), tonumber(ARGV[6])
local made = redis.call('HSETNX', key, '_born', string.format('%d', now))
redis.call('HSET', key, id, string.format('%d', now) .. '|' .. ARGV[3] .. '|' .. ARGV[4])
local out = {tonumber(redis.call('HGET', key, '_epoch') or '0'), made}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local f, v = all[i], all[i + 1]
  if f ~= '_born' and f ~= '_epoch' then
    if string.sub(v, 1, 2) == 'D|' then
      if now - tonumber(string.sub(v, 3)) > forget then redis.call('HDEL', key, f) end
    else
      local ms = tonumber(string.match(v, '^(%d+)|') or '0')
      if now - ms > lapse then
        redis.call('HSET', key, f, 'D|' .. string.format('%d', ms))
        out[#out + 1] = f
      end
    end
  end
end
redis.call('PEXPIRE', key, 86400000)
return out
