"""Watching the service run: request ids, structured logs, Prometheus metrics.

`request_id` gives every request an id and keeps it (with the request's status and tool) in a
context variable; `middleware` starts that record and observes each tool call; `logs` writes text
or JSON lines that carry the id, and `redaction` keeps keys, tokens and e-mail addresses out of them;
`metrics` defines what is counted and the small functions other modules record with (`/metrics` itself
is served by `surfaces/scrape.py`); `multiprocess` prepares the shared directory when `serve` runs
several workers.
"""
