-- REST: POST /api/v1/diagnose (the real service and bench/baseline_app.py alike).
--   wrk -t1 -c32 -d10s --latency -s bench/rest.lua http://127.0.0.1:8000
-- bench/run.py reads the method, path, headers and body below for its pre-flight check,
-- so edit them here only.
wrk.method = "POST"
wrk.path = "/api/v1/diagnose"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"description":"my door makes a loud bang"}'

dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "report.lua")
