/* The contractor widget: a site adds `<div data-garage-doors></div>` and
 * `<script src="https://SERVICE/widget.js" async></script>`, and every such element becomes a widget.
 *
 * Not served alone: web/widget.py bundles this file after components/results.js (the homeowner page's result
 * cards, run with `window` shadowed so they add no global) and calls it with their `GarageResults` and the
 * setup (words, chips, stylesheet, version). Each element gets a shadow root holding the service's stylesheet
 * and the widget, so the host page's CSS cannot reach in and ours cannot leak out. Nothing here is inline
 * script, eval or a style attribute in markup, so it runs under a strict host CSP. Calls go to the service's
 * REST API (CORS). When the service asks this page's origin for the browser challenge (`GET /challenge`), the
 * widget loads the challenge script (Turnstile, rendered into a slot in the page's own DOM) and sends a fresh
 * token as `challengeToken` with every call, and a new one once when a call is refused `challenge_failed`.
 * Options (data- attributes on the element): partner-id, zip, accent, compact, lang (else the host page's
 * `<html lang>`; a language the service has no words in falls back to English).
 */
(function (GarageResults, setup) {
  "use strict";

  var script = document.currentScript;
  var service = serviceOrigin();
  var texts = {}; // per language: {words, own, cards, chips}, made once
  var mounted = new WeakSet();
  var PARTNER_ID = /^[A-Za-z0-9_.-]{1,64}$/;
  var CHALLENGE_CODES = { challenge_required: true, challenge_failed: true };
  var challengeConfig = null; // one promise per page: what GET /challenge said
  var challengeScript = null; // one promise per page: the challenge client (window.turnstile)

  function serviceOrigin() {
    var src = script && script.src;
    if (!src) {
      var tags = document.querySelectorAll("script[src]");
      for (var i = 0; i < tags.length && !src; i++) if (/\/widget(\/v[0-9]+)?\.js(\?|$)/.test(tags[i].src)) src = tags[i].src;
    }
    return new URL(src || location.href).origin;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function Refused(message) { this.message = message; }

  /** The words, cards and chips in `host`'s language: its data-lang, else the page's, else English. */
  function textsFor(host) {
    var asked = (host.dataset.lang || document.documentElement.lang || "").trim().toLowerCase().split("-")[0];
    var lang = setup.words[asked] ? asked : "en";
    if (!texts[lang]) {
      var words = setup.words[lang];
      texts[lang] = { lang: lang, words: words, own: words.widget, cards: GarageResults.create(words), chips: setup.chips[lang] };
    }
    return texts[lang];
  }

  // -- the browser challenge ------------------------------------------------------------------------

  /** What the service asks of this page's origin: {required, siteKey, scriptUrl, action}. */
  function challengeFor() {
    if (!challengeConfig) {
      challengeConfig = fetch(service + "/challenge", { headers: { Accept: "application/json" }, credentials: "omit" })
        .then(function (response) { return response.ok ? response.json() : { required: false }; })
        .catch(function () { challengeConfig = null; return { required: false }; });
    }
    return challengeConfig;
  }

  function challengeClient(url) {
    if (!challengeScript) {
      challengeScript = new Promise(function (resolve, reject) {
        if (window.turnstile) { resolve(window.turnstile); return; }
        var tag = document.createElement("script");
        tag.src = url;
        tag.async = true;
        tag.onload = function () { if (window.turnstile) resolve(window.turnstile); else reject(new Error("no client")); };
        tag.onerror = function () { challengeScript = null; reject(new Error("not loaded")); };
        document.head.appendChild(tag);
      });
    }
    return challengeScript;
  }

  /** One challenge box per widget, rendered into `box` (in the page's DOM, shown through the widget's slot). */
  function Tokens(box, config) {
    var waiting = [];
    var token = null;
    var client = null;
    var id = null;
    var started = null;

    function settle(error) {
      while (waiting.length && (token || error)) {
        var next = waiting.shift();
        if (error) { next.reject(error); continue; }
        var spent = token;
        token = null;
        client.reset(id); // a token is good for one request: start on the next one now
        next.resolve(spent);
      }
    }

    function start() {
      if (!started) {
        started = challengeClient(config.scriptUrl).then(function (turnstile) {
          client = turnstile;
          var options = {
            sitekey: config.siteKey,
            appearance: "interaction-only",
            callback: function (fresh) { token = fresh; settle(null); },
            "expired-callback": function () { token = null; client.reset(id); },
            "error-callback": function () { token = null; settle(new Error("challenge error")); }
          };
          if (config.action) options.action = config.action;
          id = turnstile.render(box, options);
        }, function (error) { started = null; throw error; });
      }
      return started;
    }

    /** A fresh token (waits for the challenge to hand one out). */
    this.take = function () {
      return start().then(function () {
        return new Promise(function (resolve, reject) {
          waiting.push({ resolve: resolve, reject: reject });
          settle(null);
        });
      });
    };
  }

  // -- calls ---------------------------------------------------------------------------------------

  /** One REST call: {ok, status, json, headers}; status 0 when the network failed. */
  function post(tool, body) {
    return fetch(service + "/api/v1/" + tool, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "omit"
    }).then(function (response) {
      return response.json().then(function (json) {
        return { ok: response.ok, status: response.status, json: json, headers: response.headers };
      }, function () {
        return { ok: false, status: response.status, json: {}, headers: response.headers };
      });
    }, function () {
      return { ok: false, status: 0, json: {}, headers: new Headers() };
    });
  }

  function codeOf(answer) {
    return answer.json && answer.json.error ? answer.json.error.code : null;
  }

  /** The call with a challenge token when this origin needs one; a fresh token once if it is refused. */
  function call(widget, tool, body, retried) {
    return challengeFor().then(function (config) {
      if (!config.required) return null;
      if (!config.siteKey || !config.scriptUrl) throw new Refused(own.notSetUp);
      if (!widget.tokens) widget.tokens = new Tokens(widget.challengeBox, config);
      return widget.tokens.take().catch(function () { throw new Refused(widget.own.challengeFailed); });
    }).then(function (token) {
      return post(tool, token ? Object.assign({}, body, { challengeToken: token }) : body);
    }).then(function (answer) {
      if (retried || !CHALLENGE_CODES[codeOf(answer)]) return answer;
      // Spent or refused, or the challenge was switched on since this page asked: ask again, once.
      if (codeOf(answer) === "challenge_required") challengeConfig = null;
      return call(widget, tool, body, true);
    });
  }

  /** The tool's answer, or a Refused carrying the sentence to show. */
  function ask(widget, tool, body, place) {
    return call(widget, tool, body, false).then(function (answer) {
      if (answer.ok) return answer.json;
      if (CHALLENGE_CODES[codeOf(answer)]) throw new Refused(widget.own.challengeFailed);
      throw new Refused(widget.cards.refusal(tool, answer, { place: place }));
    });
  }

  // -- the widget ----------------------------------------------------------------------------------

  function options(host) {
    var data = host.dataset;
    var partner = (data.partnerId || "").trim();
    return {
      partnerId: PARTNER_ID.test(partner) ? partner : null,
      zip: (data.zip || "").trim().slice(0, 200),
      accent: (data.accent || "").trim(),
      compact: data.compact !== undefined && data.compact !== "false"
    };
  }

  /** The accent colour and a text colour readable on it (white or near-black, whichever contrasts more). */
  function applyAccent(root, value) {
    if (!value || !window.CSS || !CSS.supports("color", value)) return;
    var probe = el("span");
    probe.style.color = value; // CSSOM, not a style attribute: allowed under a strict CSP
    root.appendChild(probe);
    var rgb = (getComputedStyle(probe).color.match(/[0-9.]+/g) || []).slice(0, 3).map(Number);
    root.removeChild(probe);
    if (rgb.length < 3) return;
    var lum = rgb.map(function (c) {
      c /= 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    var l = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
    root.style.setProperty("--gdr-accent", value);
    root.style.setProperty("--gdr-on-accent", 1.05 / (l + 0.05) >= (l + 0.05) / 0.0556 ? "#ffffff" : "#111111");
  }

  function field(form, id, label, placeholder, button) {
    var input = el("input", "gdw-input");
    input.id = id;
    input.type = "text";
    input.maxLength = 200;
    input.placeholder = placeholder;
    var label_ = el("label", "gdw-label", label);
    label_.htmlFor = id;
    var submit = el("button", "gdw-submit", button);
    submit.type = "submit";
    var row = el("div", "gdw-row");
    row.appendChild(input);
    row.appendChild(submit);
    form.appendChild(label_);
    form.appendChild(row);
    return input;
  }

  function mount(host) {
    if (!host || mounted.has(host) || host.shadowRoot) return;
    mounted.add(host);
    var o = options(host);
    var t = textsFor(host);
    var words = t.words, own = t.own, cards = t.cards;
    var shadow = host.attachShadow({ mode: "open" });
    var sheet = el("link");
    sheet.rel = "stylesheet";
    sheet.crossOrigin = "anonymous"; // a CORS fetch, so the cached copy is readable to scripts too
    sheet.href = new URL(setup.stylesheet, service).href;
    var root = el("div", "gdw" + (o.compact ? " gdw-compact" : ""));
    root.lang = t.lang;
    root.hidden = true; // shown once the stylesheet is in: no flash of an unstyled widget
    function reveal() { root.hidden = false; }
    sheet.addEventListener("load", reveal);
    sheet.addEventListener("error", reveal);
    shadow.appendChild(sheet);
    shadow.appendChild(root);
    applyAccent(root, o.accent);

    var state = { description: "", place: "" };
    var widget = { challengeBox: el("div"), tokens: null, own: own, cards: cards };
    widget.challengeBox.setAttribute("slot", "challenge");
    host.appendChild(widget.challengeBox);

    root.appendChild(el("h2", "gdw-heading", own.heading));
    var askForm = el("form", "gdw-ask");
    var chips = el("fieldset", "gdw-chips");
    chips.appendChild(el("legend", "gdw-legend", own.chipsLabel));
    var chipList = el("div", "gdw-chip-list");
    t.chips.forEach(function (phrase) {
      var chip = el("button", "gdw-chip", phrase);
      chip.type = "button";
      chip.addEventListener("click", function () {
        description.value = phrase;
        journey(askForm, phrase, state.place);
      });
      chipList.appendChild(chip);
    });
    chips.appendChild(chipList);
    askForm.appendChild(chips);
    var description = field(askForm, "gdw-description", own.describeLabel, own.describePlaceholder, own.describeButton);
    description.maxLength = 2000;
    var answer = el("div", "gdw-answer");
    answer.setAttribute("aria-live", "polite");
    var proForm = el("form", "gdw-pro");
    var place = field(proForm, "gdw-place", own.placeLabel, own.placePlaceholder, own.placeButton);
    place.autocomplete = "postal-code";
    place.value = o.zip;
    var proAnswer = el("div", "gdw-answer");
    proAnswer.setAttribute("aria-live", "polite");
    var footer = el("p", "gdw-footer");
    var credit = el("a", "gdw-credit", own.poweredBy);
    credit.href = service + "/";
    credit.target = "_blank";
    credit.rel = "noopener";
    footer.appendChild(credit);
    // The challenge box (when the service asks for one) shows under the first form, where the visitor is.
    var slot = el("slot", "gdw-challenge");
    slot.name = "challenge";
    [askForm, slot, answer, proForm, proAnswer, footer].forEach(function (node) { root.appendChild(node); });

    function busy(form, region, on) {
      var buttons = root.querySelectorAll(form === askForm ? ".gdw-ask button" : ".gdw-pro button");
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = on;
      if (on) {
        region.setAttribute("aria-busy", "true");
        region.textContent = "";
        region.appendChild(cards.message(own.working, "notice"));
      } else {
        region.removeAttribute("aria-busy");
      }
    }

    /** Put `nodes` in `region`; focus moves to its first heading when `focus` (or when it had focus). */
    function show(region, nodes, focus) {
      focus = focus || region.contains(shadow.activeElement);
      region.textContent = "";
      nodes.forEach(function (node) { if (node) region.appendChild(node); });
      region.removeAttribute("aria-busy");
      var target = focus && region.querySelector(".gdr-title, .gdr-message");
      if (target) target.focus();
    }

    function failed(region) {
      return function (error) {
        show(region, [cards.message(error instanceof Refused ? error.message : words.tryAgain)], true);
      };
    }

    /** The journey (homeownerAnswer) for what is known, asked from `form`: one call, shown by the shared cards. */
    function journey(form, description, where) {
      state.description = description;
      state.place = where;
      var body = {};
      if (description) body.description = description.slice(0, 2000);
      if (where) body.place = where;
      if (where && o.partnerId) body.preferredPartnerId = o.partnerId;
      var region = form === askForm ? answer : proAnswer;
      busy(form, region, true);
      return ask(widget, "homeownerAnswer", body, where).then(function (reply) {
        var shown = cards.journeyCards(reply, { level: 3, place: where, requestBase: service });
        var location = reply.route && reply.route.location;
        var ambiguous = reply.route && reply.route.covered && location && location.ambiguous && reply.route.hint;
        if (where) show(proAnswer, [shown.pro, ambiguous ? cards.message(reply.route.hint, "notice") : null], form === proForm);
        if (shown.diagnosis && !reply.diagnosis.symptom && description) {
          // Not a symptom: perhaps a question ("how much is a new insulated door?"); the answerer has a go.
          return answered(description, shown.diagnosis, form === askForm);
        }
        if (shown.diagnosis) show(answer, [shown.diagnosis], form === askForm);
      }).catch(failed(region)).then(function () { busy(form, region, false); });
    }

    /** The ask tool's answer to words that name no symptom, or the no-match card when it has none either. */
    function answered(question, noMatch, focus) {
      return ask(widget, "ask", { question: question.slice(0, 2000) }).then(function (reply) {
        show(answer, [reply.kind === "unknown" ? noMatch : cards.answerCard(reply, { level: 3 })], focus);
      });
    }

    askForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = description.value.trim();
      if (!text) { show(answer, [cards.message(words.errors.describe)], true); return; }
      journey(askForm, text, state.place);
    });
    proForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var where = place.value.trim();
      if (!where) { show(proAnswer, [cards.message(words.errors.unknown_location)], true); return; }
      journey(proForm, state.description, where);
    });
  }

  function mountAll() {
    var hosts = document.querySelectorAll("[data-garage-doors]");
    for (var i = 0; i < hosts.length; i++) mount(hosts[i]);
  }

  if (!window.GarageDoors) window.GarageDoors = { version: setup.version, mount: mount };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})
