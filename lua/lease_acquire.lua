-- Take the reconciliation lease when nobody holds it, with a new fencing token.
-- KEYS[1] lease key, KEYS[2] last token (same hash slot); ARGV[1] lease time in ms.
-- Reply: the new token, or 0 when another holder has the lease.
-- Tokens only grow, even across a wipe of Redis that resets the last token: a token
-- is at least Redis's clock in milliseconds, so a run that took the lease before the
-- wipe always holds a smaller token than any run after it.
-- A lease always expires: a key without an expiry was not set by a holder and would
-- block every run for ever, so it is taken over.
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('PTTL', KEYS[1]) ~= -1 then return 0 end
  redis.call('DEL', KEYS[1])
end
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local token = math.max(tonumber(redis.call('GET', KEYS[2]) or '0') + 1, ms)
redis.call('SET', KEYS[2], string.format('%d', token))
redis.call('SET', KEYS[1], string.format('%d', token), 'PX', tonumber(ARGV[1]))
return token
