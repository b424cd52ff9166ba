-- REST: POST /api/v1/diagnose with forged API keys, a different one on every request: each has the
-- right prefix, length, alphabet and checksum, so the server must look its id up (and is refused, 401).
-- This is what a flood of forged keys costs. The keys come one per line from the file named by
-- GARAGE_BENCH_FORGED_KEYS (bench/run.py writes them with garage_tools.access.keys.new_key):
--   GARAGE_BENCH_FORGED_KEYS=/tmp/keys.txt wrk -t1 -c32 -d10s --latency -s bench/rest_forged.lua http://127.0.0.1:8000
-- bench/run.py reads the method, path, headers and body below for its pre-flight check.
wrk.method = "POST"
wrk.path = "/api/v1/diagnose"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"description":"my door makes a loud bang"}'

local keys = {}
local key_file = assert(os.getenv("GARAGE_BENCH_FORGED_KEYS"), "set GARAGE_BENCH_FORGED_KEYS to a file of keys")
for line in io.lines(key_file) do
  keys[#keys + 1] = line
end
assert(#keys > 0, "no keys in GARAGE_BENCH_FORGED_KEYS")
local next_key = 0

request = function()
  next_key = next_key % #keys + 1
  wrk.headers["Authorization"] = "Bearer " .. keys[next_key]
  return wrk.format()
end

expected_status = 401 -- report.lua counts every other status as an error
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "report.lua")
