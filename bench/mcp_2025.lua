-- MCP tools/call of diagnose on protocol 2025-11-25, as a client sends it after the initialize handshake.
-- No initialize and no session are needed, because the server runs stateless.
--   wrk -t1 -c32 -d10s --latency -s bench/mcp_2025.lua http://127.0.0.1:8000
-- bench/run.py reads the method, path, headers and body below for its pre-flight check.
wrk.method = "POST"
wrk.path = "/mcp"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"description":"my door makes a loud bang"}}}'

dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "report.lua")
