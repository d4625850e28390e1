-- waiting_room: one show's waiting room (API.md "Waiting room"); it gates who may call
-- the order path and writes no seat state. Every key is the show's (one hash slot):
-- KEYS[1] meta  hash: t (ms the admission credit was last
--               counted to), credit (admissions owed, fractional), seq (last queue
--               number), head (the highest queue number admitted or expired at the front),
--               base (the queue number the opening's draw started after), shuffled,
--               loaded (rebuilt from the durable record, or nothing to rebuild), drawn_at
--               (the opening, ms, whose draw ran), closed (reason),
--               admitted, abandoned (totals), busy (ms since when the queue has not
--               been empty: admissions since then measure the pace the room keeps),
--               epoch (the highest room epoch a caller passed)
-- KEYS[2] queue zset: the waiting, scored by queue number (position = rank + 1)
-- KEYS[3] pre   zset: who joined before the opening, scored by a uniform random draw made
--               at joining (the opening queues them in that order: a uniform shuffle)
-- KEYS[4] ent   hash: user id -> "<st>|<seq>|<admitted until ms>|<queue id>|<first
--               position>|<joined ms>|<epoch admitted in>", st w(aiting) a(dmitted)
--               x(expired, abandoned); an admission of an epoch before the room's reads expired
-- KEYS[5] seen  hash: user id -> ms of the entry's last read (heartbeat)
-- KEYS[6] adm   zset: user id -> ms of admission, the last minute (measured pace)
-- KEYS[7] drawn zset: pre as the opening's draw found it, when that draw numbered the
--               queue from 1 (its places are then rank + 1, which an instance counts
--               from the draws alone: waitingroom.Rooms.ReadPlace)
-- ARGV: op (join|read|advance|close|stats|load|restore|beat|catchup), now ms (the app's
-- clock), sale opening ms, pace (buyers a minute, the show's as the caller read it),
-- user id, new queue id,
-- draw (1..2^52, a new pre-opening place's), arg (close: the reason, "" reopens; then it
-- advances), idle ms (120000), admitted-for ms (600000), the room's epoch as the caller
-- read it (services.Show.RoomEpoch), durable ("1": the room is rebuilt from a durable
-- record, and every op but load answers {'NOT_LOADED'} until it was; "1:<head>": also
-- the highest head the caller saw, and a room behind it answers {'BEHIND'}: it went
-- back in time, a failover to a replica that lacked the last writes).
-- load/restore: ARGV[13] final ("1": the last chunk), head, seq, base, shuffled (0|1),
-- admitted, abandoned totals, the first queue number left unused for joins that were
-- being recorded (the numbers from it to seq may be missing), then places "<uid>|<st>|
-- <seq>|<till ms>|<queue id>|<first position>|<joined ms>|<draw>" (st w, a or x);
-- restore only adds places the room lacks. beat: ARGV[13..] user ids read since the
-- last beat (their heartbeats, batched per instance). catchup: ARGV[13] the recorded
-- head, admitted and abandoned totals, then "<uid>|<queue id>|<admitted until ms>" of
-- each recorded admission still running; its reply's "admitted now" counts the places
-- it moved out of the queue.
-- join/read reply: {st, position, admitted until ms, queue id, first position, waiting,
-- pace, admitted in the last minute, opened 0|1, closed reason, admitted now, abandoned
-- now, admitted while busy in the last minute, that window in ms, the room's epoch,
-- created (1: this join made the entry), the entry's queue number, head, base, shuffled,
-- admitted total, abandoned total, the numbers that may be missing (from, to), the size
-- of drawn, the entry's draw while unnumbered, then
-- <user id, wait ms> of each admitted now...}; st
-- is w, a, x, c (closed) or "none". The other
-- ops reply the same without an entry; stats gives the totals admitted and abandoned
-- in place of "now".
-- Moves are published on the show's room channel (meta with "meta" replaced by "moves")
-- when anyone was admitted or expired at the front ("room,<now ms>,<admitted until
-- ms>," then the reply of stats without an entry, then <user id, wait ms> of each
-- admitted now, comma-separated: every instance's snapshot of the room, and who it may
-- tell they were admitted, without a call of its own), or the room closed ("closed")
-- or was rebuilt ("moved").
local meta, queue, pre, ent, seen, adm, drawn = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local op, now, opens, pace = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local uid, qid, draw, arg = ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8]
local idle, admit_for = tonumber(ARGV[9]), tonumber(ARGV[10])
local durable, seen_head = string.match(ARGV[12], '^(%d):?(%d*)$')
if durable == '1' and op ~= 'load' and op ~= 'restore' and not redis.call('HGET', meta, 'loaded') then
  return {'NOT_LOADED'}
end
if seen_head and seen_head ~= '' and (tonumber(redis.call('HGET', meta, 'head')) or 0) < tonumber(seen_head) then
  return {'BEHIND'} -- the room went back in time: the caller catches it up first
end
local created = 0
-- the room's epoch: the highest any caller passed (a caller whose show is a second old
-- passes the one before), so an admission of an earlier epoch ends on every instance
local epoch = tonumber(ARGV[11]) or 0
do
  local seen_epoch = tonumber(redis.call('HGET', meta, 'epoch')) or 0
  if epoch > seen_epoch then
    redis.call('HSET', meta, 'epoch', epoch)
  else
    epoch = seen_epoch
  end
end
local channel = (string.gsub(meta, 'meta$', 'moves'))

local function int(n) return string.format('%d', n) end
local publish_move -- (admitted until ms, waits): the move's message (after reply)

local function parse(v)
  if not v then return nil end
  local st, seq, till, id, first, joined, ep = string.match(v, '^(%a)|(%d+)|(%d+)|([^|]*)|(%d+)|(%d+)|?(%d*)$')
  return {st = st, seq = tonumber(seq), till = tonumber(till), qid = id, first = tonumber(first), joined = tonumber(joined),
    ep = tonumber(ep) or 0}
end

local function encode(e)
  return e.st .. '|' .. int(e.seq) .. '|' .. int(e.till) .. '|' .. e.qid .. '|' .. int(e.first) .. '|' .. int(e.joined) ..
    '|' .. int(e.ep)
end

local function get(u) return parse(redis.call('HGET', ent, u)) end

local function put(u, e) redis.call('HSET', ent, u, encode(e)) end

-- DRAW_CHUNK is how many places one call of the opening's draw numbers: a draw of
-- 100,000 in one call held Redis for about 0.55 s, so a million would have held it (and
-- every other show on the node) for over 5 s; in chunks it holds Redis ~60 ms a call.
local DRAW_CHUNK = 10000

-- drawing: while the opening's draw runs, how many of pre it has not numbered yet, the
-- highest queue number it has given so far, how many it has numbered, and the queue
-- number and place it numbers after; all 0 when no draw runs
local function drawing()
  local m = redis.call('HMGET', meta, 'drawing', 'draw_base', 'draw_ahead')
  if not m[1] then return 0, 0, 0, 0, 0 end
  local done, base = tonumber(m[1]), tonumber(m[2])
  return redis.call('ZCARD', pre) - done, base + done, done, base, tonumber(m[3])
end

-- shuffle: at a call at or after the opening, everyone who joined before it (pre) is
-- queued behind whoever is already queued, in the order of their draws (independent,
-- uniform and unseen: a uniform random order, reproducible from the durable record);
-- pre is emptied when the draw ends, so each place is drawn once, even when staff move
-- the opening or a caller's show is stale. A call numbers at most DRAW_CHUNK places:
-- the first reserves the draw's queue numbers (base+1 .. base+#pre: whoever joins
-- from then on comes after them) and every later call (a read, a join, the tickers',
-- which go on until it ends) numbers the next chunk; until then a place not yet
-- numbered is counted from its rank in pre (reply), and advance numbers the next chunk
-- before it would admit past the numbered ones. A draw that began ends, even when the
-- opening has since moved later.
-- The first time, the admission credit starts counting at the opening.
local drew = false -- this call numbered a chunk: the next shuffle numbers another only when forced

local function shuffle(force)
  local m = redis.call('HMGET', meta, 'drawing', 'draw_base', 'draw_ahead', 'seq')
  if now < opens and not m[1] then return end
  if m[1] and drew and not force then return end
  drew = true
  local total = redis.call('ZCARD', pre)
  if total > 0 then
    local done, base, ahead = tonumber(m[1]), tonumber(m[2]), tonumber(m[3])
    if not done then
      done, base, ahead = 0, tonumber(m[4]) or 0, redis.call('ZCARD', queue)
      if ahead == 0 then redis.call('HSET', meta, 'busy', int(now)) end
      redis.call('HSET', meta, 'seq', base + total, 'base', base, 'drawing', 0, 'draw_base', base, 'draw_ahead', ahead)
    end
    local upto = math.min(done + DRAW_CHUNK, total)
    local all = redis.call('ZRANGE', pre, done, upto - 1)
    -- a few thousand places a call of each command: a call per place made a draw of
    -- 100,000 hold Redis for most of a second
    for c = 1, #all, 2000 do
      local last = math.min(c + 1999, #all)
      local vals, zs, hs = redis.call('HMGET', ent, unpack(all, c, last)), {}, {}
      for i = c, last do
        local u, e = all[i], parse(vals[i - c + 1])
        e.seq, e.first = base + done + i, ahead + done + i
        zs[#zs + 1], zs[#zs + 2] = int(e.seq), u
        hs[#hs + 1], hs[#hs + 2] = u, encode(e)
      end
      redis.call('ZADD', queue, unpack(zs))
      redis.call('HSET', ent, unpack(hs))
    end
    if upto < total then
      redis.call('HSET', meta, 'drawing', upto)
    else
      redis.call('HDEL', meta, 'drawing', 'draw_base', 'draw_ahead')
      if base == 0 and ahead == 0 and redis.call('EXISTS', drawn) == 0 then
        redis.call('RENAME', pre, drawn)
      else
        redis.call('DEL', pre)
      end
    end
  elseif m[1] then
    redis.call('HDEL', meta, 'drawing', 'draw_base', 'draw_ahead')
  end
  if now < opens then return end
  if tonumber(redis.call('HGET', meta, 'drawn_at')) ~= opens then redis.call('HSET', meta, 'drawn_at', int(opens)) end
  if not redis.call('HGET', meta, 'shuffled') then
    redis.call('HSET', meta, 'shuffled', 1, 't', int(opens), 'credit', 0)
  end
end

-- finish_draw numbers every place a running draw has left (a join before a moved
-- opening and a restore add to pre, whose ranks the running draw counts by)
local function finish_draw()
  while redis.call('HEXISTS', meta, 'drawing') == 1 do shuffle(true) end
end

-- advance admits from the front as the pace's credit allows: an entry unread for idle
-- ms is expired (abandoned) and costs no credit. Credit accrues from the opening at
-- pace/60000 a ms, at most five seconds' worth (or 1) banked.
local function advance()
  local m = redis.call('HMGET', meta, 't', 'credit', 'closed')
  local waits = {}
  if m[3] or now < opens then return 0, 0, waits end
  local front = tonumber(redis.call('HGET', meta, 'head')) or 0
  shuffle()
  local t, credit = tonumber(m[1]) or opens, tonumber(m[2]) or 0
  if now > t then
    credit = credit + (now - t) * pace / 60000
    t = now
  end
  local cap = math.max(1, pace / 12) -- five seconds' worth: the pace holds when advanced at least that often
  if credit > cap then credit = cap end
  local admitted, abandoned = 0, 0
  while credit >= 1 and admitted + abandoned < 5000 do
    local head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
    local undrawn, upto = drawing()
    if undrawn > 0 and (#head == 0 or tonumber(head[2]) > upto) then
      shuffle(true) -- the draw's next places come before whoever joined since it began
      head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
    end
    if #head == 0 then break end
    local u = head[1]
    redis.call('ZREM', queue, u)
    local e = get(u)
    if e.seq > front then front = e.seq end
    if (tonumber(redis.call('HGET', seen, u)) or 0) < now - idle then
      e.st, abandoned = 'x', abandoned + 1
    else
      e.st, e.till, e.ep, credit, admitted = 'a', now + admit_for, epoch, credit - 1, admitted + 1
      redis.call('ZADD', adm, now, u)
      local from = e.joined
      if from < opens then from = opens end
      waits[#waits + 1] = u
      waits[#waits + 1] = now - from
    end
    put(u, e)
  end
  if admitted + abandoned == 0 then
    -- nothing moved: t and credit stay as stored, and the next call counts the same credit
    -- from them (the cap gives one answer either way), so a read writes no room state
    return 0, 0, waits
  end
  redis.call('HSET', meta, 't', int(t), 'credit', tostring(credit), 'head', int(front))
  if admitted > 0 then redis.call('HINCRBY', meta, 'admitted', admitted) end
  if abandoned > 0 then redis.call('HINCRBY', meta, 'abandoned', abandoned) end
  redis.call('ZREMRANGEBYSCORE', adm, '-inf', '(' .. int(now - 60000))
  if redis.call('ZCARD', queue) == 0 then redis.call('HDEL', meta, 'busy') end
  publish_move(now + admit_for, waits)
  return admitted, abandoned, waits
end

local function reply(e, admitted, abandoned, waits)
  local closed = redis.call('HGET', meta, 'closed')
  local undrawn, upto, done, base, ahead = drawing()
  -- pre is all waiting before the draw, and its unnumbered part while the draw runs
  -- (a running draw always has some left)
  local waiting = redis.call('ZCARD', queue) + (undrawn > 0 and undrawn or redis.call('ZCARD', pre))
  local recent = redis.call('ZCOUNT', adm, now - 60000, '+inf')
  local busy, busy_n, busy_ms = tonumber(redis.call('HGET', meta, 'busy')), 0, 0
  if busy then
    if busy < now - 60000 then busy = now - 60000 end
    busy_n, busy_ms = redis.call('ZCOUNT', adm, busy, '+inf'), now - busy
  end
  local opened = 0
  if now >= opens then opened = 1 end
  local m = redis.call('HMGET', meta, 'head', 'base', 'shuffled', 'admitted', 'abandoned', 'gap_from', 'gap_to')
  local ndrawn = 0
  if m[3] then ndrawn = redis.call('ZCARD', drawn) end
  local shuffled = 0
  if m[3] then shuffled = 1 end
  local out = {'none', 0, 0, '', 0, waiting, pace, recent, opened, closed or '', admitted, abandoned, busy_n, int(busy_ms), epoch,
    created, 0, m[1] or '0', m[2] or '0', shuffled, m[4] or '0', m[5] or '0', m[6] or '0', m[7] or '0', ndrawn, '0', undrawn}
  if e then
    local st, pos, unnumbered = e.st, 0, e.seq == 0
    if st == 'w' and closed then
      st = 'c'
    elseif st == 'w' then
      local r = redis.call('ZRANK', queue, uid)
      if r then pos = r + 1 end
      if r and undrawn > 0 and e.seq > upto then pos = pos + undrawn end -- joined since the draw began
      if e.seq == 0 and undrawn > 0 then
        -- not numbered yet by a running draw: its number and place are its rank in pre's
        -- (the draw numbers pre in that order, behind the numbered ones still waiting)
        local k = redis.call('ZRANK', pre, uid)
        if k then
          e.seq, e.first = base + k + 1, ahead + k + 1
          pos = redis.call('ZCOUNT', queue, '-inf', upto) + k - done + 1
        end
      end
    elseif st == 'a' and (e.till <= now or e.ep < epoch) then
      st = 'x'
    end
    out[1], out[2], out[3], out[4], out[5] = st, pos, int(e.till), e.qid, e.first
    out[17] = int(e.seq)
    if unnumbered then out[26] = redis.call('ZSCORE', pre, uid) or '0' end
  end
  for i, w in ipairs(waits) do
    if i % 2 == 1 then out[#out + 1] = w else out[#out + 1] = int(w) end
  end
  return out
end

-- the room as stats answers it (totals admitted and abandoned), with who was admitted
-- now, for every instance's snapshot: the op's last write is behind it (reads follow)
publish_move = function(till, waits)
  local m = redis.call('HMGET', meta, 'admitted', 'abandoned')
  local out = reply(nil, tonumber(m[1]) or 0, tonumber(m[2]) or 0, waits)
  for i = 1, #out do out[i] = tostring(out[i]) end
  redis.call('PUBLISH', channel, 'room,' .. int(now) .. ',' .. int(till) .. ',' .. table.concat(out, ','))
end

if op == 'join' then
  shuffle()
  local e = get(uid)
  local live = e and (e.st == 'w' or (e.st == 'a' and e.till > now and e.ep >= epoch))
  if not live and redis.call('HGET', meta, 'closed') then
    return reply(nil, 0, 0, {})
  end
  if not live then
    e = {st = 'w', seq = 0, till = 0, qid = qid, first = 0, joined = now, ep = 0}
    created = 1
    -- a join whose caller's clock is a moment behind a draw already made for this
    -- opening queues behind it, as if it came a moment later (no second draw)
    if now < opens and tonumber(redis.call('HGET', meta, 'drawn_at')) ~= opens then
      finish_draw() -- an opening moved later: the last opening's draw ends before pre grows
      redis.call('ZADD', pre, draw, uid)
    else
      e.seq = redis.call('HINCRBY', meta, 'seq', 1)
      if redis.call('ZCARD', queue) == 0 then redis.call('HSET', meta, 'busy', int(now)) end
      redis.call('ZADD', queue, e.seq, uid)
      e.first = redis.call('ZRANK', queue, uid) + 1 + drawing() -- behind the places a running draw has yet to number
    end
    put(uid, e)
  end
  redis.call('HSET', seen, uid, int(now))
  local admitted, abandoned, waits = advance() -- before reading the entry it may admit
  return reply(get(uid), admitted, abandoned, waits)
elseif op == 'read' then
  local e = get(uid)
  if e and e.st == 'w' then redis.call('HSET', seen, uid, int(now)) end
  local admitted, abandoned, waits = advance() -- before reading the entry it may admit
  return reply(get(uid), admitted, abandoned, waits)
elseif op == 'advance' then
  return reply(nil, advance())
elseif op == 'close' then
  if arg == '' then
    redis.call('HDEL', meta, 'closed')
  elseif not redis.call('HGET', meta, 'closed') then
    redis.call('HSET', meta, 'closed', arg)
    redis.call('PUBLISH', channel, 'closed')
  end
  local admitted, abandoned, waits = advance() -- the tickers' one call a room: nothing when closed
  return reply(nil, admitted, abandoned, waits)
elseif op == 'load' or op == 'restore' then
  -- rebuild from the durable record: places the room lacks come back as they were (a
  -- waiting one seen now: a flush is nobody's silence); the last chunk of a load sets the
  -- counters and the marker. A room already loaded takes no chunk of a load.
  if op == 'load' and redis.call('HGET', meta, 'loaded') then return {'loaded'} end
  finish_draw() -- pre may grow: a running draw counts by its ranks
  for i = 21, #ARGV do
    local u, st, seq, till, id, first, joined, d = string.match(ARGV[i], '^(%d+)|(%a)|(%d+)|(%d+)|([^|]*)|(%d+)|(%d+)|(%d+)$')
    if u and not redis.call('HGET', ent, u) then
      put(u, {st = st, seq = tonumber(seq), till = tonumber(till), qid = id, first = tonumber(first), joined = tonumber(joined), ep = epoch})
      if st == 'w' then
        if tonumber(seq) == 0 then
          redis.call('ZADD', pre, d, u)
        else
          redis.call('ZADD', queue, seq, u)
        end
        redis.call('HSET', seen, u, int(now))
      end
    end
  end
  if op == 'load' and ARGV[13] == '1' then
    local seq = math.max(tonumber(redis.call('HGET', meta, 'seq')) or 0, tonumber(ARGV[15]))
    redis.call('HSET', meta, 'loaded', 1, 'head', ARGV[14], 'seq', int(seq), 'base', ARGV[16],
      'admitted', ARGV[18], 'abandoned', ARGV[19], 'gap_from', ARGV[20], 'gap_to', int(seq))
    if ARGV[17] == '1' and not redis.call('HGET', meta, 'shuffled') then
      redis.call('HSET', meta, 'shuffled', 1, 't', int(now), 'credit', 0)
    end
    if redis.call('ZCARD', queue) > 0 then redis.call('HSET', meta, 'busy', int(now)) end
    redis.call('PUBLISH', channel, 'moved')
  end
  return {'ok'}
elseif op == 'catchup' then
  -- a room that went back in time (a lossy failover: the promoted replica lacked the last
  -- writes) catches up with its durable record: whoever waits at or behind the recorded
  -- head left the queue there, admitted (until the recorded ms, same queue id) or
  -- expired; the head and the totals never go back, and the admission credit counts
  -- from now (the rebuild's rule). A room already that far is left.
  local rec_head = tonumber(ARGV[13])
  local m = redis.call('HMGET', meta, 'head', 'admitted', 'abandoned')
  local head = tonumber(m[1]) or 0
  local moved = 0
  if rec_head > head then
    local till = {}
    for i = 16, #ARGV do
      local u, id, t = string.match(ARGV[i], '^(%d+)|([^|]*)|(%d+)$')
      if u then till[u] = {id = id, t = tonumber(t)} end
    end
    for _, u in ipairs(redis.call('ZRANGEBYSCORE', queue, '-inf', rec_head)) do
      redis.call('ZREM', queue, u)
      local e = get(u)
      if e then
        local a = till[u]
        if a and a.id == e.qid then
          e.st, e.till, e.ep = 'a', a.t, epoch
        else
          e.st = 'x'
        end
        put(u, e)
        moved = moved + 1
      end
    end
    -- the credit of the lost time went to the admissions recorded: it counts from now
    redis.call('HSET', meta, 'head', int(rec_head), 'admitted', int(math.max(tonumber(m[2]) or 0, tonumber(ARGV[14]))),
      'abandoned', int(math.max(tonumber(m[3]) or 0, tonumber(ARGV[15]))), 't', int(now), 'credit', 0)
    if redis.call('ZCARD', queue) == 0 then redis.call('HDEL', meta, 'busy') end
    redis.call('PUBLISH', channel, 'moved')
  end
  return reply(nil, moved, 0, {})
elseif op == 'beat' then
  -- one HSET a few thousand at a time, without reading the entries: seen is read only for
  -- a waiting entry at the front, so a beat of a buyer admitted meanwhile is harmless
  local kv, t = {}, int(now)
  for i = 13, #ARGV do
    kv[#kv + 1] = ARGV[i]
    kv[#kv + 1] = t
  end
  for i = 1, #kv, 4000 do redis.call('HSET', seen, unpack(kv, i, math.min(i + 3999, #kv))) end
  return {'ok'}
elseif op == 'stats' then
  local m = redis.call('HMGET', meta, 'admitted', 'abandoned')
  return reply(nil, tonumber(m[1]) or 0, tonumber(m[2]) or 0, {})
end
return redis.error_reply('unknown op ' .. op)
