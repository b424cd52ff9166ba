/* The lab embed loader: getLabEmbed's snippet loads it after the iframe, and it grows each lab frame from this
 * service to the lab's full height, so a lab embedded on a phone reads like the rest of the page instead of
 * scrolling inside a small window. Without it the frame keeps the snippet's phone-friendly height.
 *
 * Checked both ways. The frames are sandboxed without allow-same-origin, so a lab runs in an opaque origin
 * ("null") and cannot be addressed by origin; so this loader takes a height only from the window of a frame it
 * owns (an iframe[data-garage-lab] whose src is on this service), and only as a number it clamps. The lab
 * (static/labs/frame-height.js) sends its height only to its own parent window, at the origin that greeted it.
 * The greeting and the lab's "ready" carry no data. */
(function () {
  "use strict";
  var script = document.currentScript;
  var service = new URL(script ? script.src : location.href).origin;
  var MIN_HEIGHT = 360;
  var MAX_HEIGHT = 30000;
  var HELLO = "garage-lab:hello";

  function frames() {
    var found = [];
    var all = document.querySelectorAll("iframe[data-garage-lab]");
    for (var i = 0; i < all.length; i++) {
      try {
        if (new URL(all[i].src, location.href).origin === service) found.push(all[i]);
      } catch (error) { /* not a URL: not ours */ }
    }
    return found;
  }

  function greet(frame) {
    if (frame.contentWindow) frame.contentWindow.postMessage({ type: HELLO }, "*");
  }

  function watch(frame) {
    if (frame.dataset.garageLabWatched) return;
    frame.dataset.garageLabWatched = "1";
    frame.addEventListener("load", function () { greet(frame); });
    greet(frame);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data !== "object" || (event.origin !== "null" && event.origin !== service)) return;
    var owned = frames();
    for (var i = 0; i < owned.length; i++) {
      var frame = owned[i];
      if (event.source !== frame.contentWindow) continue;
      if (data.type === "garage-lab:ready") greet(frame);
      if (data.type === "garage-lab:height" && typeof data.height === "number" && isFinite(data.height)) {
        var height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(data.height)));
        frame.style.maxHeight = "none"; // CSSOM, allowed under a strict host CSP
        frame.style.height = height + "px";
      }
      return;
    }
  });

  function start() { frames().forEach(watch); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
