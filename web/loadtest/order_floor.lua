-- A measuring stick, never run by the product: the Redis commands of a created order of
-- order.lua, with the same keys and arguments, and nothing else (no check, no parsing
-- beyond counting the seats). What order.lua costs beyond it is its own Lua. Benchmarks
-- run it on scratch keys (BenchmarkOrderScript_RedisTimePerCall, seatflow loadtest's
-- redis_order_floor ceiling). The window it reads is the batch's seats and two each
-- side, as seats.RuleArgs' window is, when a row string ends ARGV.
local nrows = tonumber(string.match(ARGV[4], '^[^|]*|[^|]*|(%d+)') or '0')
local n = (#ARGV - 4 - nrows) / 2
redis.call('MGET', KEYS[9], KEYS[8], KEYS[7])
for i = 0, n - 1 do redis.call('HGET', KEYS[1], ARGV[5 + 2 * i]) end
redis.call('HGET', KEYS[2], ARGV[6])
redis.call('HMGET', KEYS[3], ARGV[3], '_')
redis.call('TIME')
redis.call('GET', KEYS[5])
redis.call('SET', KEYS[5], '301234567.25', 'EX', 60)
redis.call('GET', KEYS[6])
redis.call('SET', KEYS[6], '301234567.25', 'EX', 1)
redis.call('HGET', KEYS[4], ARGV[6])
if nrows > 0 then
  local first = tonumber(ARGV[5])
  redis.call('HMGET', KEYS[1], first - 2, first - 1, ARGV[5], ARGV[3 + 2 * n], first + n, first + n + 1)
end
local val = 'H|' .. ARGV[2] .. '|' .. ARGV[3]
for i = 0, n - 1 do redis.call('HSET', KEYS[1], ARGV[5 + 2 * i], val) end
redis.call('HINCRBY', KEYS[2], ARGV[6], -n)
redis.call('HINCRBY', KEYS[3], ARGV[3], n)
redis.call('HGETALL', KEYS[2])
redis.call('SPUBLISH', KEYS[1] .. ':floor-changes', 'changed')
redis.call('SET', KEYS[7], 'token', 'PX', 15000)
redis.call('SET', KEYS[8], 'token', 'NX', 'EX', 90000)
return {'HOLD', '', '0', '1', 'OK', '0'}
