-- MCP tools/call of diagnose on protocol 2026-07-28 at /mcp-pro, the endpoint that requires an API key.
-- Otherwise the same request as mcp_2026.lua. The key comes from the environment:
--   GARAGE_BENCH_KEY=svc_live_... wrk -t1 -c32 -d10s --latency -s bench/mcp_2026_keyed.lua http://127.0.0.1:8000
-- bench/run.py reads the method, path, headers and body below for its pre-flight check.
wrk.method = "POST"
wrk.path = "/mcp-pro"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "diagnose"
wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("GARAGE_BENCH_KEY"), "set GARAGE_BENCH_KEY to an API key")
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"description":"my door makes a loud bang"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}'

dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "report.lua")
