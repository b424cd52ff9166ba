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
  function mend() {
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
