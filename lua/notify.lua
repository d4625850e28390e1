-- notify tells the viewers of a show what changed, in the same script as the change:
-- SPUBLISH on the show's shard channel (the seats key with "seats" replaced by
-- "changes": it carries the show's hash tag, so it lives in the slot of the script's
-- keys, as a Redis Cluster requires of a script's sharded publish) of
-- "<seat_id>=<state>,...|<zone>=<free>,..." with state F, H, S or B (never the owner),
-- or "reload" when the whole map was written. Prepended to every writing script.
local function notify(seats_key, zones_key, changed)
  local channel = (string.gsub(seats_key, 'seats$', 'changes'))
  if changed == nil then
    redis.call('SPUBLISH', channel, 'reload')
    return
  end
  if #changed == 0 then return end
  local all, counts = redis.call('HGETALL', zones_key), {}
  for i = 1, #all, 2 do
    if all[i] ~= '_' then counts[#counts + 1] = all[i] .. '=' .. all[i + 1] end
  end
  redis.call('SPUBLISH', channel, table.concat(changed, ',') .. '|' .. table.concat(counts, ','))
end
