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
    validatorUrl: null
  });
})();
