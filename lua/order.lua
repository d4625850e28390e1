-- Create one order's Redis side in one call, on the show's hash slot: the Idempotency-Key's
-- marker, the precheck, the rate limits, the key's lock and the hold (hold.lua, run as the
-- function hold, which embed.go puts before this text).
-- KEYS[1..4] as hold.lua (seats, zones, users, the waiting list's gate); KEYS[5] the
-- buyer's rate bucket for this show, KEYS[6] the show's rate bucket; KEYS[7] the
-- Idempotency-Key's lock, KEYS[8] its "seen" marker, KEYS[9] the show's marker epoch
-- (the key's three only matter with flag k); KEYS[10] the show's voucher uses (voucher
-- id -> seats of live orders it discounted here; '_' marker: loaded), read with a voucher.
-- ARGV[1] "flags|user burst|user rate|user period s|show burst|show rate|show period s|
-- token|lock ms|marker s|zone|quantity|voucher id|seats it covers|cap"; flags: k the request has a key, s answer SEEN
-- when the key's marker exists, p precheck the seats (taken by others), c the rate
-- limits were counted already, l stop after the rate limits, o the same, over the
-- purchase limit (no precheck). A rate of 0 is no limit. zone and quantity, when set:
-- the precheck's refusal of a zone with fewer free seats (best available). A voucher id
-- ('' none): the hold is refused (VOUCHER) when its uses here plus the seats it covers
-- would pass cap (max_uses less its live uses in other shows); held, they are counted.
-- ARGV[2..] hold.lua's ARGV (order_no, user_id, limit, seat pairs, row strings).
-- Replies: {phase, epoch, own, first, ...}: epoch the marker epoch's value ('' when
-- missing), own '1' when a requested seat is the buyer's already, first '1' when the
-- key was claimed and had no marker; phase and its tail:
--   SEEN (the key's marker exists, nothing done) | LOCKED (another request holds the
--   key's lock) | PRE + a refusal {'TAKEN', seat_id, ...} or {'SOLD_OUT', zone, free}
--   (nothing spent) | RATE, 'user' or 'show', retry after (s, a float) | LIMITS | OVER
--   | VOUCHER, uses here (nothing held) | HOLD + hold.lua's reply (the key is claimed
--   only with its OK)
--   | {'NOT_LOADED'} alone, before anything is spent.
-- Steps run in that order; the rate limits are the only writes before the hold's own
-- checks, as when they were separate calls: a refusal after them still counts the
-- attempt. The limits are redis_rate v10's GCRA (its allowN, cost 1): the same
-- arithmetic on Redis's TIME, the same bucket value (the theoretical arrival time in
-- seconds since 2017-01-01 UTC) and expiry.
-- what a refusal by the key or the precheck needs is read from ARGV as it is; the gate's
-- other fields and the hold's ARGV are made after the precheck (a refusal costs less)
local flags = string.match(ARGV[1], '^[^|]*')
local function has(f) return string.find(flags, f, 1, true) ~= nil end
local epoch, own, first = '', '0', '0'
local function reply(phase, tail)
  local out = {phase, epoch, own, first}
  for _, v in ipairs(tail or {}) do out[#out + 1] = v end
  return out
end

-- the key's marker epoch, marker and lock, read at once (nothing below writes them
-- before the lock's check)
local keyed = {false, false, false}
if has('k') then
  keyed = redis.call('MGET', KEYS[9], KEYS[8], KEYS[7])
  epoch = keyed[1] or ''
  if has('s') and keyed[2] then
    if has('c') and keyed[3] then return reply('LOCKED') end
    return reply('SEEN')
  end
end

-- every key and field the steps read must be loaded before anything is spent (a
-- precheck refusal spends nothing); what is read here is handed to the hold (PRE),
-- which reads nothing twice
-- (hold.lua's ARGV starts at ARGV[2]: ARGV[3] the user, ARGV[4] "limit|rule|rows|...")
local user = ARGV[3]
local n = (#ARGV - 4 - (tonumber(string.match(ARGV[4], '^[^|]*|[^|]*|(%d+)') or '0'))) / 2
local pre = {seats = {}, zones = {}}
local taken, zonesOf = {}, {}
for i = 0, n - 1 do
  local id = ARGV[5 + 2 * i]
  local v = redis.call('HGET', KEYS[1], id)
  if not v then return {'NOT_LOADED'} end
  pre.seats[id] = v
  if v ~= 'F' then
    local owner = string.match(v, '|([^|]*)$')
    if owner == user then own = '1' else taken[#taken + 1] = id end
  end
  zonesOf[ARGV[6 + 2 * i]] = true
end
-- the precheck answers from what it needs alone: a taken seat from the seats read, a
-- zone with too few free seats from the zones read (the reads it skips change nothing)
if has('p') and not has('o') and #taken > 0 then
  table.insert(taken, 1, 'TAKEN')
  return reply('PRE', taken)
end
-- the gate's 15 fields in one match (ARGV[1] always has them all), the hold's ARGV in one
-- unpack: a loop of string or table appends costs several times more in Redis's Lua
local gate = {string.match(ARGV[1], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)$')}
if #gate ~= 15 then return redis.error_reply('order.lua: ARGV[1] needs 15 fields') end
local holdArgv = {unpack(ARGV, 2)}
if gate[11] ~= '' then zonesOf[gate[11]] = true end
if next(zonesOf) == nil and redis.call('EXISTS', KEYS[2]) == 0 then return {'NOT_LOADED'} end
for zone in pairs(zonesOf) do
  local free = redis.call('HGET', KEYS[2], zone)
  if not free then return {'NOT_LOADED'} end
  pre.zones[zone] = free
end
if n == 0 and redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_LOADED'} end
if gate[11] ~= '' and not has('o') then
  local free = tonumber(pre.zones[gate[11]])
  if free < tonumber(gate[12]) then return reply('PRE', {'SOLD_OUT', gate[11], tostring(free)}) end
end
-- the users hash always has its marker '_' (load.lua, repair.lua); one written by a
-- counter alone (HINCRBY on a missing hash) is told apart by EXISTS, as before
local counts = redis.call('HMGET', KEYS[3], user, '_')
if not counts[2] and redis.call('EXISTS', KEYS[3]) == 0 then return {'NOT_LOADED'} end
pre.have, pre.marker = counts[1], counts[2]
local voucher = gate[13] or ''
if voucher ~= '' and not has('l') and not has('o') and redis.call('HEXISTS', KEYS[10], '_') == 0 then
  return {'NOT_LOADED'}
end

-- redis_rate v10's allowN with cost 1; returns nil when allowed, else the retry after.
-- Both limits read one TIME (redis_rate reads it once a call; the calls were
-- microseconds apart)
local clock
local function gcra(key, burst, rate, period)
  if tonumber(rate) <= 0 then return nil end
  local emission_interval = period / rate
  local increment = emission_interval
  local burst_offset = emission_interval * burst
  local jan_1_2017 = 1483228800
  if not clock then
    local t = redis.call('TIME')
    clock = (t[1] - jan_1_2017) + (t[2] / 1000000)
  end
  local now = clock
  local tat = redis.call('GET', key)
  if not tat then tat = now else tat = tonumber(tat) end
  tat = math.max(tat, now)
  local new_tat = tat + increment
  local allow_at = new_tat - burst_offset
  local diff = now - allow_at
  if diff / emission_interval < 0 then return diff * -1 end
  local reset_after = new_tat - now
  if reset_after > 0 then
    redis.call('SET', key, new_tat, 'EX', math.ceil(reset_after))
  end
  return nil
end
if not has('c') then
  -- both limits count the attempt, whatever the other answers; the buyer's is told first
  local userWait = gcra(KEYS[5], gate[2], gate[3], gate[4])
  local showWait = gcra(KEYS[6], gate[5], gate[6], gate[7])
  if userWait then return reply('RATE', {'user', tostring(userWait)}) end
  if showWait then return reply('RATE', {'show', tostring(showWait)}) end
end
if has('l') then return reply('LIMITS') end
if has('o') then return reply('OVER') end

if has('k') and keyed[3] then return reply('LOCKED') end
if voucher ~= '' then
  local here = tonumber(redis.call('HGET', KEYS[10], voucher) or '0')
  if here + tonumber(gate[14]) > tonumber(gate[15]) then return reply('VOUCHER', {tostring(here)}) end
end
local out = hold(KEYS, holdArgv, pre)
if out[1] == 'OK' and voucher ~= '' then redis.call('HINCRBY', KEYS[10], voucher, tonumber(gate[14])) end
if out[1] == 'OK' and has('k') then
  redis.call('SET', KEYS[7], gate[8], 'PX', tonumber(gate[9]))
  if redis.call('SET', KEYS[8], gate[8], 'NX', 'EX', tonumber(gate[10])) then first = '1' end
end
return reply('HOLD', out)
