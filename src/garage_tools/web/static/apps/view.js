/* An MCP App view (io.modelcontextprotocol/ui, protocol 2026-01-26): one of the service's answers drawn with the
 * front door's own result cards (components/results.js) inside an assistant's conversation.
 *
 * The host loads this page in a sandboxed frame and talks to it with JSON-RPC over postMessage: the view sends
 * `ui/initialize` and then `ui/notifications/initialized`; the host sends the tool's arguments
 * (`ui/notifications/tool-input`) and result (`ui/notifications/tool-result`), which the view draws. Links open
 * through the host (`ui/open-link`), the pro card's button asks the host to call a tool (`tools/call`), and the
 * view reports its height (`ui/notifications/size-changed`). The page makes no network request of its own.
 * Which view this is comes from <body data-view>; the words from the two JSON blocks in the page.
 */
(function () {
  "use strict";

  var PROTOCOL = "2026-01-26";
  var body = document.body;
  var root = document.getElementById("view");
  var cardWords = JSON.parse(document.getElementById("card-words").textContent);
  var words = JSON.parse(document.getElementById("view-words").textContent);
  var cards = window.GarageResults.create(cardWords);
  var fill = window.GarageResults.fill;
  var pending = {};
  var nextId = 1;

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

  var VIEWS = {
    diagnosis: function (answer) { return cards.diagnosisCard(answer, {}); },
    pro: function (route) { return cards.partnerCard(route, {}); },
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
    if (result.isError) {
      var text = (result.content && result.content[0] && result.content[0].text) || "";
      var message = text;
      try { message = JSON.parse(text).error.message; } catch (ignored) { /* plain text */ }
      show(cards.message(fill(words.failed, { message: message })));
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
    if (message.method === "ui/notifications/tool-result") render(message.params);
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
  }).then(function () {
    notify("ui/notifications/initialized");
  });
})();
