/* "Ask this pro to come out": sends the form (components/request_form.html) to the service's own REST API,
 * POST /api/v1/requestService, and shows the request number in place. Without this script the form posts to
 * /requests/new and the server answers with the same status page, so this file only enhances. Its words are
 * the page's own (the server rendered them from request-words.json); refusals fall back to the server's
 * path by submitting the form normally, which answers in plain words. */
(function () {
  "use strict";

  function field(form, name) {
    var input = form.elements.namedItem(name);
    return input && input.value ? String(input.value).trim() : "";
  }

  function argumentsOf(form) {
    var contact = { name: field(form, "name") };
    if (field(form, "phone")) contact.phone = field(form, "phone");
    if (field(form, "email")) contact.email = field(form, "email");
    var body = {
      partnerId: field(form, "partner"),
      zip: field(form, "zip"),
      contact: contact,
      consent: { contactShare: form.elements.namedItem("consent").checked }
    };
    [["issueKey", "issue"], ["description", "description"], ["doorSize", "size"], ["notes", "notes"],
     ["reportId", "report"]].forEach(function (pair) {
      if (field(form, pair[1])) body[pair[0]] = field(form, pair[1]);
    });
    if (field(form, "day") && field(form, "part")) {
      body.windows = [{ date: field(form, "day"), partOfDay: field(form, "part") }];
    }
    return body;
  }

  function enhance(form) {
    var live = form.querySelector("[data-request-live]");
    var button = form.querySelector("button[type=submit]");
    var label = button.textContent;
    form.addEventListener("submit", function (event) {
      // The server's own answer, in its own words; and a form with no pro yet, which the server routes first.
      if (form.dataset.plain === "yes" || !field(form, "partner")) return;
      event.preventDefault();
      button.disabled = true;
      button.textContent = "\u2026";
      fetch("/api/v1/requestService", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify(argumentsOf(form))
      }).then(function (response) {
        return response.json().then(function (json) { return { ok: response.ok, json: json }; });
      }).then(function (answer) {
        if (!answer.ok) throw new Error("refused");
        // The status page says it all, with the number, and works without script: go there.
        var path = "/requests/" + answer.json.statusUrl.split("/").pop() + "?sent=1";
        live.textContent = answer.json.requestId;
        window.location.assign(path);
      }).catch(function () {
        button.disabled = false;
        button.textContent = label;
        form.dataset.plain = "yes";
        form.submit(); // let the server explain, in plain words, on the form itself
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-request-form]"), enhance);
})();
