-- Loaded by the request scripts: at the end of a run, print one machine-readable line
--   BENCH_RESULT {"requests":...,"rps":...,"p50_us":...,...}
-- that bench/run.py parses. Harmless when wrk is run by hand.
--
-- "unexpected_status" counts responses whose status is not the one the run expects: wrk's own count of
-- statuses >= 400, unless the request script set `expected_status` (say 401) before loading this file;
-- then a `response` hook counts every other status in each thread (it costs wrk a little CPU per response).
local threads = {}
if expected_status then
  setup = function(thread) threads[#threads + 1] = thread end
  unexpected = 0
  response = function(status, headers, body)
    if status ~= expected_status then unexpected = unexpected + 1 end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  local wrong = e.status
  if expected_status then
    wrong = 0
    for _, thread in ipairs(threads) do wrong = wrong + thread:get("unexpected") end
  end
  local secs = summary.duration / 1e6
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"rps":%.2f,' ..
    '"lat_mean_us":%.1f,"lat_stdev_us":%.1f,"lat_max_us":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_timeout":%d,"err_status":%d,"unexpected_status":%d}\n',
    summary.requests, summary.duration, summary.bytes, summary.requests / secs,
    latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    e.connect, e.read, e.write, e.timeout, e.status, wrong))
end
