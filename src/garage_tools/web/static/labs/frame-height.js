/* In a lab framed by another site (?embed=1): tell the embedding page how tall the lab is, so the embed loader
 * (/labs/embed.js) can grow the frame to fit. Only to the parent window, only after it greeted us, and only to
 * the origin it greeted us from; "ready" (which carries nothing) asks a loader that started first to greet. */
(function () {
  "use strict";
  if (window.parent === window) return;
  var host = null;
  var last = 0;

  function height() {
    var body = document.body;
    var style = getComputedStyle(body);
    return Math.ceil(body.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom));
  }

  function report() {
    if (!host) return;
    var now = height();
    if (now === last) return;
    last = now;
    window.parent.postMessage({ type: "garage-lab:height", height: now }, host);
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent || !event.data || event.data.type !== "garage-lab:hello") return;
    if (!/^https?:\/\//.test(event.origin)) return; // a page opened from disk has no origin to answer to
    host = event.origin;
    last = 0;
    report();
  });

  if (window.ResizeObserver) new ResizeObserver(report).observe(document.body);
  window.addEventListener("load", report);
  window.parent.postMessage({ type: "garage-lab:ready" }, "*");
})();
