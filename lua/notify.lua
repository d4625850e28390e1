-- notify tells the viewers of a show what changed, in the same script as the change:
-- PUBLISH on the show's channel (the seats key with "seats" replaced by "changes") of
-- "<seat_id>=<state>,...|<zone>=<free>,..." with state F, H, S or B (never the owner),
-- or "reload" when the whole map was written. Prepended to every writing script.
local function notify(seats_key, zones_key, changed)
  local channel = (string.gsub(seats_key, 'seats$', 'changes'))
  if changed == nil then
    redis.call('PUBLISH', channel, 'reload')
    return
  end
  if #changed == 0 then return end
  local all, counts = redis.call('HGETALL', zones_key), {}
  for i = 1, #all, 2 do
    if all[i] ~= '_' then counts[#counts + 1] = all[i] .. '=' .. all[i + 1] end
  end
  redis.call('PUBLISH', channel, table.concat(changed, ',') .. '|' .. table.concat(counts, ','))
end
