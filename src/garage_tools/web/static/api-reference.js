/* Swagger UI for this server's /openapi.json. "Try it out" sends requests to the server itself:
   the page and the API share an origin, so no browser challenge is needed. */
"use strict";

(function () {
  var root = document.getElementById("swagger-ui");
  if (!root || typeof SwaggerUIBundle !== "function") {
    return;
  }
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    supportedSubmitMethods: ["post"],
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    syntaxHighlight: { activated: false }, // its themes' colours fall short of 4.5:1 on their dark ground
    validatorUrl: null
  });

  // What Swagger UI renders falls short for keyboard and screen-reader users in a few places; mend them
  // whenever it renders: a link nested in each operation's toggle button (the button already opens it, and
  // the address bar follows), controls without a name, and code boxes that scroll but take no focus.
  function each(selector, mendOne) {
    var found = root.querySelectorAll(selector);
    for (var i = 0; i < found.length; i++) mendOne(found[i]);
  }
  function name(selector, label) {
    each(selector, function (node) { if (!node.hasAttribute("aria-label")) node.setAttribute("aria-label", label); });
  }
  // Swagger UI draws a closed padlock once an operation's security is met and an open one until then, so a
  // public operation (security [{}, {bearer}], met by no key at all) shows closed and a key-only one open:
  // the reverse of what people read into a padlock. Draw open for "no key needed", closed for "key needed".
  var PADLOCKS = {  // Swagger UI's own two padlock drawings
    locked: "M15.8 8H14V5.6C14 2.703 12.665 1 10 1 7.334 1 6 2.703 6 5.6V8H4c-.553 0-1 .646-1 1.199V17c0 " +
      ".549.428 1.139.951 1.307l1.197.387C5.672 18.861 6.55 19 7.1 19h5.8c.549 0 1.428-.139 1.951-.307l1.196-.387c" +
      ".524-.167.953-.757.953-1.306V9.199C17 8.646 16.352 8 15.8 8zM12 8H8V5.199C8 3.754 8.797 3 10 3c1.203 0 2 " +
      ".754 2 2.199V8z",
    unlocked: "M15.8 8H14V5.6C14 2.703 12.665 1 10 1 7.334 1 6 2.703 6 5.6V6h2v-.801C8 3.754 8.797 3 10 3c1.203 " +
      "0 2 .754 2 2.199V8H4c-.553 0-1 .646-1 1.199V17c0 .549.428 1.139.951 1.307l1.197.387C5.672 18.861 6.55 19 " +
      "7.1 19h5.8c.549 0 1.428-.139 1.951-.307l1.196-.387c.524-.167.953-.757.953-1.306V9.199C17 8.646 16.352 8 " +
      "15.8 8z"
  };
  var keyOnly = null;
  function needsKey(operationId) {
    if (keyOnly === null) {
      var spec = window.ui && window.ui.specSelectors.specJson().toJS();
      if (!spec || !spec.paths) return null;
      keyOnly = {};
      Object.keys(spec.paths).forEach(function (path) {
        var post = spec.paths[path].post || {};
        keyOnly[post.operationId] = !(post.security || []).some(function (s) { return !Object.keys(s).length; });
      });
    }
    return keyOnly[operationId];
  }
  function padlock(block) {
    var button = block.querySelector(".opblock-summary .authorization__btn");
    var required = button && needsKey(block.id.replace(/^operations-[^-]+-/, ""));
    if (required === null || required === undefined) return;
    var icon = required ? "locked" : "unlocked";
    var label = required ? "Needs an API key" : "No API key needed (a key raises your limits)";
    if (button.getAttribute("aria-label") !== label) button.setAttribute("aria-label", label);
    if (button.title !== label) button.title = label;
    var svg = button.querySelector("svg");
    var path = svg && svg.querySelector("path");
    if (path && svg.getAttribute("class") !== icon) {
      svg.setAttribute("class", icon);
      path.setAttribute("d", PADLOCKS[icon]);
    }
  }
  function mend() {
    each(".opblock", padlock);
    each(".opblock-summary-control a[href]", function (link) { link.removeAttribute("href"); });
    name("select#servers", "Server");
    name(".copy-to-clipboard button", "Copy to clipboard");
    name(".body-param textarea", "Request body");
    each(".curl, .highlight-code pre, pre.microlight", function (code) {
      if (!code.hasAttribute("tabindex")) code.tabIndex = 0;
    });
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });
})();
