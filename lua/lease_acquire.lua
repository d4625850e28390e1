-- Take the reconciliation lease when nobody holds it, with a new fencing token.
-- KEYS[1] lease key, KEYS[2] token counter (same hash slot); ARGV[1] lease time in ms.
-- Reply: the new token (>= 1), or 0 when another holder has the lease.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', tonumber(ARGV[1]))
return token
