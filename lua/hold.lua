-- Hold a batch of seats for one order, all or nothing.
-- KEYS[1] seats hash, KEYS[2] zone free counts hash, KEYS[3] per-user seat counts hash,
-- KEYS[4] (optional) the waiting list's gate: zone code -> free count from which the
-- zone's seats are kept for its waiting list
-- ARGV[1] order_no, ARGV[2] user_id, ARGV[3] purchase limit, or "limit|rule|rows|flags"
-- with the single-seat rule ("", "warn" or "enforce"), how many row strings end ARGV,
-- and flags: "o" a waiting list's offer (the gate does not apply to it), then
-- optionally "|leaving": how many seat ids end ARGV after the row strings (an exchange's
-- seats the order lets go once the batch is held: the rule counts them free),
-- ARGV[4..] pairs: seat_id, zone_code, then the row strings: one per row the batch
-- touches, "window/whole row", each part runs of standard seats side by side separated
-- by ";", each seat "seat_id:zone_code" separated by ",", or "first-last:zone_code" for
-- seats side by side whose ids count up by one (seats.RuleArgs): the window
-- holds the batch's seats and two seats each side in their runs (all a batch can
-- strand; the whole row is read only to look for another block under enforce; a
-- string without "/" is both), then the leaving seat ids.
-- Replies: {"OK", users marker (the per-user counts' rebuild time, see load.lua),
--          stranded seat_id, ...} | {"NOT_LOADED"} | {"TAKEN", seat_id, ...}
--        | {"LIMIT", held_now} | {"SOLD_OUT", zone_code} | {"DUP", seat_id}
--        | {"GAP", stranded seat_id, ...} | {"WAITLIST", zone_code}
-- A seat is stranded (seats/strand.go, the definition this mirrors) when the batch
-- leaves it free with neither seat of its run beside it free, one of them being the
-- batch's. "enforce" answers GAP when a row holding a stranded seat offers, for a zone
-- of which the batch takes k seats there, k free seats of that zone side by side that
-- strand none.
-- Every check runs before the first write: Redis never rolls back a script's writes.
local seats, zones, users = KEYS[1], KEYS[2], KEYS[3]
local owner, user = ARGV[1], ARGV[2]
local opts = {}
for part in string.gmatch(ARGV[3] .. '|', '([^|]*)|') do opts[#opts + 1] = part end
local limit, rule = tonumber(opts[1]), opts[2] or ''
local nrows, flags = tonumber(opts[3] or '0') or 0, opts[4] or ''
local nleave = tonumber(opts[5] or '0') or 0
local gate = KEYS[4]
-- PRE: what the caller (order.lua, earlier in the same script, so nothing changed since)
-- read already, nil when run alone or by exchange.lua: seats (seat_id -> value, every
-- seat of the batch), zones (zone -> free count, every zone of the batch), have (the
-- buyer's count, false for none) and marker (the users hash's '_'). A value it holds
-- was found, so the three keys exist.
if not PRE and (redis.call('EXISTS', seats) == 0 or redis.call('EXISTS', zones) == 0
    or redis.call('EXISTS', users) == 0) then
  return {'NOT_LOADED'}
end
local function seatValue(id)
  if PRE then return PRE.seats[id] end
  return redis.call('HGET', seats, id)
end
local n = (#ARGV - 3 - nrows - nleave) / 2
local leaving = {}
for j = 1, nleave do leaving[ARGV[3 + 2 * n + nrows + j]] = true end
local taken, need, seen = {}, {}, {}
for i = 0, n - 1 do
  local id, zone = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
  if seen[id] then return {'DUP', id} end
  seen[id] = true
  local v = seatValue(id)
  if not v then return {'NOT_LOADED'} end
  if v ~= 'F' then taken[#taken + 1] = id end
  need[zone] = (need[zone] or 0) + 1
end
if #taken > 0 then
  table.insert(taken, 1, 'TAKEN')
  return taken
end
local have
if PRE then have = PRE.have else have = redis.call('HGET', users, user) end
have = tonumber(have or '0')
if have + n > limit then return {'LIMIT', tostring(have)} end
for zone, k in pairs(need) do
  local free
  if PRE then free = PRE.zones[zone] else free = redis.call('HGET', zones, zone) end
  if not free then return {'NOT_LOADED'} end
  if tonumber(free) < k then return {'SOLD_OUT', zone} end
  if gate and flags == '' then
    local from = redis.call('HGET', gate, zone)
    if from and tonumber(free) >= tonumber(from) then return {'WAITLIST', zone} end
  end
end
local stranded, gap = {}, false
-- a row string is "window/whole row" (seats.RuleArgs): its runs, each seat "id:zone";
-- runsOf reads one part's runs with whether each seat is free (or leaving)
local function runsOf(text)
  local runs, ids = {}, {}
  for runText in string.gmatch(text, '[^;]+') do
    local run = {}
    for first, last, zone in string.gmatch(runText, '(%d+)%-?(%d*):([^,]+)') do
      if last == '' then
        run[#run + 1] = {id = first, zone = zone}
        ids[#ids + 1] = first
      else
        for i = tonumber(first), tonumber(last) do
          local id = string.format('%d', i)
          run[#run + 1] = {id = id, zone = zone}
          ids[#ids + 1] = id
        end
      end
    end
    runs[#runs + 1] = run
  end
  local vals = redis.call('HMGET', seats, unpack(ids))
  local k = 1
  for _, run in ipairs(runs) do
    for _, s in ipairs(run) do
      s.free = vals[k] == 'F' or leaving[s.id] == true
      k = k + 1
    end
  end
  return runs
end
for r = 1, nrows do
  local text = ARGV[3 + 2 * n + r]
  local near, whole = string.match(text, '^([^/]*)/(.*)$')
  if not near then near = text end
  -- the window: the only seats the batch can strand, and their neighbours
  local runs = runsOf(near)
  local function freeAfter(s) return s ~= nil and s.free and not seen[s.id] end
  local rowStranded, want = {}, {}
  for _, run in ipairs(runs) do
    for j, s in ipairs(run) do
      if seen[s.id] then want[s.zone] = (want[s.zone] or 0) + 1 end
      if freeAfter(s) and not freeAfter(run[j - 1]) and not freeAfter(run[j + 1])
          and ((run[j - 1] and seen[run[j - 1].id]) or (run[j + 1] and seen[run[j + 1].id])) then
        rowStranded[#rowStranded + 1] = s.id
      end
    end
  end
  local function strandsBeyond(run, at, dir)
    local s = run[at]
    if not s or not s.free then return false end
    local past = run[at + dir]
    return not past or not past.free
  end
  if #rowStranded > 0 and rule == 'enforce' and not gap then
    -- another block of the row may strand none: that search needs the whole row
    if whole then runs = runsOf(whole) end
    for zone, want_k in pairs(want) do
      for _, run in ipairs(runs) do
        local streak = 0
        for j, s in ipairs(run) do
          if s.free and s.zone == zone then streak = streak + 1 else streak = 0 end
          if streak >= want_k and not strandsBeyond(run, j - want_k, -1)
              and not strandsBeyond(run, j + 1, 1) then
            gap = true
          end
        end
      end
    end
  end
  for _, id in ipairs(rowStranded) do stranded[#stranded + 1] = id end
end
if gap then
  table.insert(stranded, 1, 'GAP')
  return stranded
end
local val = 'H|' .. owner .. '|' .. user
for i = 0, n - 1 do redis.call('HSET', seats, ARGV[4 + 2 * i], val) end
for zone, k in pairs(need) do redis.call('HINCRBY', zones, zone, -k) end
redis.call('HINCRBY', users, user, n)
local changed = {}
for i = 0, n - 1 do changed[#changed + 1] = ARGV[4 + 2 * i] .. '=H' end
notify(seats, zones, changed)
local marker
if PRE then marker = PRE.marker else marker = redis.call('HGET', users, '_') end
local out = {'OK', marker or '0'}
for _, id in ipairs(stranded) do out[#out + 1] = id end
return out
