-- Prints wrk's results as one JSON line, with the percentiles the harness reports.
done = function(summary, latency, requests)
  io.write(string.format(
    '{"requests": %d, "errors": %d, "seconds": %.3f, "p50_ms": %.2f, "p95_ms": %.2f, "p99_ms": %.2f, "max_ms": %.2f}\n',
    summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    summary.duration / 1e6,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
