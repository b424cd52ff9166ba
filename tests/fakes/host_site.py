"""A contractor's website on another loopback origin, for the widget and lab embeds, with a stand-in Turnstile.

Tests put pages in `pages` (path -> HTML and response headers such as a strict Content-Security-Policy)
and the site serves them, so every call the widget makes to the service is cross-origin, as in the field.
`/turnstile.js` is a stand-in for Turnstile's api.js: `turnstile.render(box, options)` shows a small box and
hands `options.callback` a token, and `turnstile.reset(id)` hands out the next one. Tokens are fresh
(`standin-<n>-<random>`) unless the test queued some in `first_tokens` (e.g. one already spent), handed out
first. The fake siteverify (tests/fakes/siteverify.py) accepts any fresh token once under its pass secret.
"""

from __future__ import annotations

import http.server
import json
import threading
from dataclasses import dataclass, field
from typing import Any

STAND_IN_TURNSTILE = """(function () {
  "use strict";
  var queued = %(first)s, counter = 0, widgets = [];
  function next() {
    return queued.length ? queued.shift() : "standin-" + (++counter) + "-" + Math.random().toString(36).slice(2);
  }
  function hand(id) {
    var w = widgets[id];
    setTimeout(function () { w.options.callback(next()); }, 50);
  }
  window.turnstile = {
    render: function (box, options) {
      var note = document.createElement("p");
      note.textContent = "Stand-in challenge";
      box.appendChild(note);
      widgets.push({ box: box, options: options });
      window.standInRenders = (window.standInRenders || []).concat([options.sitekey]);
      hand(widgets.length - 1);
      return widgets.length - 1;
    },
    reset: function (id) { hand(id); },
    remove: function () {},
    getResponse: function () { return undefined; }
  };
})();
"""


@dataclass
class Page:
    html: str
    headers: dict[str, str] = field(default_factory=dict)


class HostSite:
    """Start with `start()`; `url` is its origin; fill `pages`; `first_tokens` feed the stand-in Turnstile."""

    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.first_tokens: list[str] = []
        self.script_requests = 0
        self._server: http.server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> None:
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/turnstile.js":
                    site.script_requests += 1
                    first, site.first_tokens = site.first_tokens, []
                    body = (STAND_IN_TURNSTILE % {"first": json.dumps(first)}).encode()
                    self._send(200, body, {"Content-Type": "text/javascript"})
                    return
                page = site.pages.get(path)
                if page is None:
                    self._send(404, b"not here", {"Content-Type": "text/plain"})
                    return
                self._send(200, page.html.encode(), {"Content-Type": "text/html; charset=utf-8", **page.headers})

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, name="host-site", daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
