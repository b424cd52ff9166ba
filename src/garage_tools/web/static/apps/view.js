/* An MCP App view (io.modelcontextprotocol/ui, protocol 2026-01-26): one of the service's answers drawn with the
 * front door's own result cards (components/results.js) inside an assistant's conversation.
 *
 * The host loads this page in a sandboxed frame and talks to it with JSON-RPC over postMessage: the view sends
 * `ui/initialize` and then `ui/notifications/initialized`; the host sends the tool's arguments
 * (`ui/notifications/tool-input`) and result (`ui/notifications/tool-result`), which the view draws. Links open
 * through the host (`ui/open-link`), the pro card's button asks the host to call a tool (`tools/call`), and the
 * view reports its height (`ui/notifications/size-changed`). The page makes no network request of its own.
 * Which view this is comes from <body data-view>; the words from the two JSON blocks in the page, each in every
 * language the service speaks: a view speaks its answer's language (`lang`), else the one the assistant asked
 * for, else the host's locale (hostContext), else English.
 */
(function () {
  "use strict";

  var PROTOCOL = "2026-01-26";
  var body = document.body;
  var root = document.getElementById("view");
  var cardWordsBy = JSON.parse(document.getElementById("card-words").textContent);
  var wordsBy = JSON.parse(document.getElementById("view-words").textContent);
  var words, cards;
  var hostLocale = null; // the host's locale (hostContext.locale, e.g. "es-US"), when it says
  var fill = window.GarageResults.fill;
  var pending = {};
  var nextId = 1;
  var toolInput = {}; // the arguments the assistant called the tool with (ui/notifications/tool-input)

  /** The language a tag names ("es-MX" -> "es") when the view has words in it, else null. */
  function spoken(tag) {
    var code = typeof tag === "string" ? tag.split(/[-_]/)[0].toLowerCase() : "";
    return wordsBy[code] ? code : null;
  }

  /** Speak `code`: the view's and the cards' words, and <html lang>. */
  function speak(code) {
    words = wordsBy[code];
    cards = window.GarageResults.create(cardWordsBy[code]);
    document.documentElement.lang = code;
  }

  function languageOf(answer) {
    return spoken(answer && answer.lang) || spoken(toolInput.lang) || spoken(hostLocale) || "en";
  }

  speak("en");

  function post(message) {
    window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  }

  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      post({ id: id, method: method, params: params || {} });
    });
  }

  function notify(method, params) {
    post({ method: method, params: params || {} });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function show(node) {
    root.replaceChildren(node);
    reportSize();
  }

  function reportSize() {
    notify("ui/notifications/size-changed", { height: Math.ceil(document.documentElement.scrollHeight) });
  }

  // --- the views -------------------------------------------------------------------------------------------

  function costCard(answer) {
    var card = el("section", "gdr-card gdr-cost-card");
    card.appendChild(el("h2", "gdr-title", fill(words.costTitle, { issue: answer.issueName })));
    var range = el("p", "gdr-cost");
    range.appendChild(el("strong", "gdr-cost-range", window.GarageResults.costRange(answer.costRange)));
    card.appendChild(range);
    if (answer.safetyNote) card.appendChild(el("p", "gdr-note", answer.safetyNote));
    if (answer.covers) card.appendChild(el("p", "gdr-cause-text", fill(words.costCovers, { covers: answer.covers })));
    var assumptions = answer.assumptions || [];
    if (assumptions.length) {
      card.appendChild(el("h3", "gdr-subtitle", words.costAssumptions));
      var list = el("ul", "gav-list gav-small");
      assumptions.forEach(function (text) { list.appendChild(el("li", null, text)); });
      card.appendChild(list);
    }
    return card;
  }

  function inspectionCard(report) {
    var card = el("section", "gdr-card gdr-inspection");
    card.appendChild(el("h2", "gdr-title", fill(words.inspectionTitle, { score: report.score, grade: report.grade })));
    var flagged = report.flagged || report.flaggedItems || [];
    if (flagged.length) {
      card.appendChild(el("h3", "gdr-subtitle", words.inspectionFlagged));
      var list = el("ul", "gav-list");
      flagged.forEach(function (item) {
        list.appendChild(el("li", null, [item.label || item.title || item.id, item.guidance || item.note || ""]
          .filter(Boolean).join(": ")));
      });
      card.appendChild(list);
    }
    if (report.nextStep && report.nextStep.text) {
      card.appendChild(el("h3", "gdr-subtitle", words.inspectionNext));
      card.appendChild(el("p", "gdr-cause-text", report.nextStep.text));
    }
    if (report.reportUrl) card.appendChild(linkParagraph(report.reportUrl, words.inspectionReport));
    return card;
  }

  function labCard(lab) {
    var card = el("section", "gdr-card gdr-lab");
    card.appendChild(el("h2", "gdr-title", lab.title));
    card.appendChild(el("p", "gdr-cause-text", lab.description));
    if (lab.preview && lab.preview.data) {
      var img = el("img", "gav-preview");
      img.src = "data:" + lab.preview.mimeType + ";base64," + lab.preview.data;
      img.alt = lab.preview.alt || "";
      card.appendChild(img);
    }
    var sections = lab.sections || [];
    if (sections.length) {
      card.appendChild(el("h3", "gdr-subtitle", words.labSections));
      var list = el("ul", "gav-list");
      sections.forEach(function (section) {
        var item = el("li");
        item.appendChild(anchor(section.url, section.title));
        list.appendChild(item);
      });
      card.appendChild(list);
    }
    card.appendChild(linkParagraph(lab.url, words.labOpen));
    return card;
  }

  /** The pro card, and under it a short form that asks this pro to come out: requestService, called through the
   * host (`tools/call`), so the assistant's own connection and limits apply and the person sees the answer. */
  function proView(route) {
    var box = el("div", "gav-pro");
    box.appendChild(cards.partnerCard(route, {}));
    if (route.covered && route.partnerId && route.partner) box.appendChild(requestForm(route));
    return box;
  }

  var fieldCount = 0;

  function field(form, label, type, autocomplete) {
    var id = "gav-field-" + (++fieldCount);
    var wrap = el("p", "gav-field");
    var caption = el("label", null, label);
    caption.htmlFor = id;
    var input = el(type === "textarea" ? "textarea" : "input", "gav-input");
    input.id = id;
    if (type !== "textarea") input.type = type;
    if (autocomplete) input.autocomplete = autocomplete;
    wrap.appendChild(caption);
    wrap.appendChild(input);
    form.appendChild(wrap);
    return input;
  }

  function requestForm(route) {
    var pro = route.partner.displayName;
    // A group, not a <form>: hosts sandbox the frame, and a sandbox without allow-forms drops every submit.
    var form = el("section", "gdr-card gav-request");
    form.appendChild(el("h3", "gdr-subtitle", fill(words.requestTitle, { pro: pro })));
    form.appendChild(el("p", "gav-small", fill(words.requestIntro, { pro: pro })));
    var name = field(form, words.requestName, "text", "name");
    name.maxLength = 100;
    form.appendChild(el("p", "gav-small", words.requestReach));
    var phone = field(form, words.requestPhone, "tel", "tel");
    phone.maxLength = 32;
    var email = field(form, words.requestEmail, "email", "email");
    var what = field(form, words.requestWhat, "textarea");
    what.maxLength = 2000;
    if (toolInput.description) what.value = String(toolInput.description).slice(0, 2000);
    var consentRow = el("p", "gav-consent");
    var consent = el("input");
    consent.type = "checkbox";
    consent.id = "gav-consent";
    var consentLabel = el("label", null, fill(words.requestConsent, { pro: pro }));
    consentLabel.htmlFor = consent.id;
    consentRow.appendChild(consent);
    consentRow.appendChild(consentLabel);
    form.appendChild(consentRow);
    var send = el("button", "gdr-button gdr-call", words.requestSend);
    send.type = "button";
    form.appendChild(send);
    var outcome = el("div", "gav-outcome");
    outcome.setAttribute("role", "status");
    form.appendChild(outcome);

    send.addEventListener("click", function () {
      var contact = { name: name.value.trim() };
      if (phone.value.trim()) contact.phone = phone.value.trim();
      if (email.value.trim()) contact.email = email.value.trim();
      if (!contact.name || !(contact.phone || contact.email) || !consent.checked) {
        outcome.replaceChildren(cards.message(words.requestMissing));
        reportSize();
        return;
      }
      var args = { partnerId: route.partnerId, zip: route.location.zip, contact: contact, consent: { contactShare: true } };
      if (route.issue && route.issue.key) args.issueKey = route.issue.key;
      if (what.value.trim()) args.description = what.value.trim();
      if (!args.issueKey && !args.description) {
        outcome.replaceChildren(cards.message(words.requestWhatMissing));
        reportSize();
        return;
      }
      send.disabled = true;
      outcome.replaceChildren(cards.message(words.waiting, "notice"));
      reportSize();
      request("tools/call", { name: "requestService", arguments: args }).then(function (result) {
        if (!result || result.isError || !result.structuredContent) {
          send.disabled = false;
          outcome.replaceChildren(cards.message(fill(words.failed, { message: errorText(result) })));
        } else {
          var done = result.structuredContent;
          var note = el("div", "gav-sent");
          note.appendChild(el("p", "gdr-cause-text", fill(words.requestSent, { number: done.requestId, pro: done.partner.name })));
          if (done.nextStep) note.appendChild(el("p", "gdr-cause-text", done.nextStep));
          if (done.statusUrl) note.appendChild(linkParagraph(done.statusUrl, words.requestStatus));
          form.replaceChildren(note);
        }
        reportSize();
      }, function (error) {
        send.disabled = false;
        outcome.replaceChildren(cards.message(fill(words.failed, { message: (error && error.message) || "" })));
        reportSize();
      });
    });
    return form;
  }

  function errorText(result) {
    var text = (result && result.content && result.content[0] && result.content[0].text) || "";
    try { return JSON.parse(text).error.message; } catch (ignored) { return text; }
  }

  var VIEWS = {
    diagnosis: function (answer) { return cards.diagnosisCard(answer, {}); },
    pro: proView,
    cost: costCard,
    inspection: inspectionCard,
    lab: labCard
  };

  function anchor(href, text) {
    var a = el("a", "gdr-link", text);
    a.href = href;
    return a;
  }

  function linkParagraph(href, text) {
    var p = el("p", "gdr-more");
    p.appendChild(anchor(href, text));
    return p;
  }

  function render(result) {
    if (!result) return;
    speak(languageOf(result.structuredContent));
    if (result.isError) {
      show(cards.message(fill(words.failed, { message: errorText(result) })));
      return;
    }
    var draw = VIEWS[body.getAttribute("data-view")];
    if (draw && result.structuredContent) show(draw(result.structuredContent));
  }

  // --- the host's messages -----------------------------------------------------------------------------------

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.id !== undefined && !message.method) {
      var waiting = pending[message.id];
      delete pending[message.id];
      if (waiting) {
        if (message.error) waiting.reject(message.error);
        else waiting.resolve(message.result);
      }
      return;
    }
    if (message.method === "ui/notifications/tool-input") toolInput = (message.params && message.params.arguments) || {};
    else if (message.method === "ui/notifications/host-context-changed") hostLocale = (message.params || {}).locale || hostLocale;
    else if (message.method === "ui/notifications/tool-result") render(message.params);
    else if (message.method === "ui/resource-teardown") post({ id: message.id, result: {} });
    else if (message.method === "ping") post({ id: message.id, result: {} });
    else if (message.id !== undefined) post({ id: message.id, error: { code: -32601, message: "Method not found" } });
  });

  // Links open through the host: the frame is sandboxed and may not navigate.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link) return;
    event.preventDefault();
    request("ui/open-link", { url: link.href }).catch(function () { /* the host refused: nothing to do */ });
  });

  if (window.ResizeObserver) new ResizeObserver(reportSize).observe(document.documentElement);

  request("ui/initialize", {
    protocolVersion: PROTOCOL,
    appInfo: { name: "garage-door-tools-" + body.getAttribute("data-view"), version: body.getAttribute("data-version") },
    appCapabilities: {}
  }).then(function (result) {
    hostLocale = (result && result.hostContext && result.hostContext.locale) || null;
    notify("ui/notifications/initialized");
  });
})();
