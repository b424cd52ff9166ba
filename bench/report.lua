-- Loaded by the request scripts: at the end of a run, print one machine-readable line
--   BENCH_RESULT {"requests":...,"rps":...,"p50_us":...,...}
-- that bench/run.py parses. Harmless when wrk is run by hand.
done = function(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"rps":%.2f,' ..
    '"lat_mean_us":%.1f,"lat_stdev_us":%.1f,"lat_max_us":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_timeout":%d,"err_status":%d}\n',
    summary.requests, summary.duration, summary.bytes, summary.requests / secs,
    latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    e.connect, e.read, e.write, e.timeout, e.status))
end
