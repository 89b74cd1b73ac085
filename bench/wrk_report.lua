-- Prints wrk's results as one JSON line, with the percentiles the harness reports.
-- With arguments (`-- FILE THREADS`), the request paths come from FILE, one a line, each
-- thread taking every THREADS-th line so that no path is requested twice until all were.
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  if args[1] == nil then return end
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  step = tonumber(args[2] or "1")
  next_path = id + 1
end

function request()
  if paths == nil then return wrk.format() end
  local path = paths[next_path]
  if path == nil then next_path = id + 1; path = paths[next_path] end
  next_path = next_path + step
  return wrk.format(nil, path)
end

done = function(summary, latency, requests)
  io.write(string.format(
    '{"requests": %d, "errors": %d, "seconds": %.3f, "p50_ms": %.2f, "p95_ms": %.2f, "p99_ms": %.2f, "max_ms": %.2f}\n',
    summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    summary.duration / 1e6,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
