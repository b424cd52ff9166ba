-- REST: POST /api/v1/diagnose with an API key (the pro tier), otherwise the same request as rest.lua.
-- The key comes from the environment, because bench/run.py creates a new one for every server:
--   GARAGE_BENCH_KEY=svc_live_... wrk -t1 -c32 -d10s --latency -s bench/rest_keyed.lua http://127.0.0.1:8000
-- bench/run.py reads the method, path, headers and body below for its pre-flight check.
wrk.method = "POST"
wrk.path = "/api/v1/diagnose"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("GARAGE_BENCH_KEY"), "set GARAGE_BENCH_KEY to an API key")
wrk.body = '{"description":"my door makes a loud bang"}'

dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "report.lua")
