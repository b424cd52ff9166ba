/* The homeowner page at /: its forms call the service's own REST API (same origin): the journey
 * (POST /api/v1/homeownerAnswer) and the photo check (visualDiagnose), and show the answers with the shared
 * result cards (components/results.js, `journeyCards`). Without this script the same
 * forms post to the page and the server renders the same cards, so this file only enhances: the answer
 * arrives in place, in the form's aria-live region, and focus moves to it. */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("help-config").textContent);
  var words = config.words;
  var cards = window.GarageResults.create(words);
  var fill = window.GarageResults.fill;
  var PHOTO_BYTES = 4 * 1024 * 1024; // larger photos are scaled down first (the service takes up to 5 MiB)
  var PHOTO_EDGE = 2048;

  var forms = { ask: byId("ask"), pro: byId("pro"), photo: byId("photo") };
  var regions = { ask: byId("answer"), pro: byId("pro-answer"), photo: byId("photo-answer") };
  var state = { description: "", place: "" };

  function byId(id) { return document.getElementById(id); }

  /** One REST call: {ok, status, json, headers}, or {status: 0} when the network failed. */
  function call(tool, body) {
    return fetch("/api/v1/" + tool, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
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

  /** What to tell the homeowner about a refused call (the shared cards' wording, as web/home.py's). */
  function plainError(tool, answer, place) {
    return cards.refusal(tool, answer, { place: place, photoCap: config.photoCap });
  }

  function Refused(message, answer) { this.message = message; this.answer = answer; }

  /** The tool's answer, or a Refused carrying the sentence to show. */
  function ask(tool, body, place) {
    return call(tool, body).then(function (answer) {
      if (!answer.ok) throw new Refused(plainError(tool, answer, place), answer);
      return answer.json;
    });
  }

  function show(region, nodes, focus) {
    // A card replaced while it had focus (costs re-priced under the reader) keeps it on its successor.
    focus = focus || region.contains(document.activeElement);
    region.textContent = "";
    nodes.forEach(function (node) { if (node) region.appendChild(node); });
    region.removeAttribute("aria-busy");
    if (focus) {
      var target = region.querySelector(".gdr-title, .gdr-message");
      if (target) target.focus();
    }
  }

  function busy(name, on) {
    var buttons = forms[name].querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = on;
    if (on) regions[name].setAttribute("aria-busy", "true");
  }

  function failed(name, focus) {
    return function (error) {
      if (!(error instanceof Refused)) throw error;
      show(regions[name], [cards.message(error.message)], focus);
    };
  }

  function setField(form, name, value) {
    var field = form.querySelector('[name="' + name + '"]');
    if (field && field.type !== "file") field.value = value;
  }

  /** The size the homeowner chose ("9x7", "16x7"), or null when not sure. */
  function doorSize() {
    var chosen = forms.ask.querySelector("input[name=size]:checked");
    return chosen && chosen.value ? chosen.value : null;
  }

  /** The address that reopens this answer: the state in the query (web/home.py `Answer.link` reads it). */
  function keepInAddress() {
    var query = new URLSearchParams();
    if (state.description) query.set("q", state.description);
    if (state.place) query.set("place", state.place);
    if (doorSize()) query.set("size", doorSize());
    var text = query.toString();
    if (window.history && history.replaceState) history.replaceState(null, "", text ? "/?" + text : "/");
    var link = document.querySelector(".help-permalink a");
    if (link) {
      link.href = text ? "/?" + text : "/";
      link.parentNode.hidden = !state.diagnosis;
    }
  }

  function choices(intro, names) {
    var row = document.createElement("div");
    row.className = "help-choices";
    var lead = document.createElement("p");
    lead.className = "help-choices-intro";
    lead.textContent = intro;
    row.appendChild(lead);
    names.forEach(function (name) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "help-chip";
      button.textContent = name;
      button.addEventListener("click", function () {
        byId("place").value = name;
        journey(state.description, name, "pro");
      });
      row.appendChild(button);
    });
    return row;
  }

  /** The other places of an ambiguous city name, to pick from (the server's form does the same). */
  function otherPlaces(route) {
    var location = route && route.location;
    if (!location || !location.ambiguous || !(location.alternatives || []).length) return null;
    return choices(fill(words.otherPlaces, { place: window.GarageResults.placeName(location) }),
      location.alternatives.map(window.GarageResults.placeName));
  }

  /**
   * The journey (homeownerAnswer) for what is known, asked from form `name` ("ask" or "pro"): one call;
   * the diagnosis and the pro arrive together, the causes priced for the place. `still`: focus stays put.
   */
  function journey(description, place, name, still) {
    state.description = description;
    state.place = place;
    [forms.pro, forms.photo].forEach(function (form) { setField(form, "description", description); });
    [forms.ask, forms.photo].forEach(function (form) { setField(form, "place", place); });
    var body = {};
    if (description) body.description = description;
    if (place) body.place = place;
    if (doorSize()) body.doorSize = doorSize();
    busy(name, true);
    return ask("homeownerAnswer", body, place).then(function (answer) {
      var shown = cards.journeyCards(answer, {
        place: place, photos: true, proHref: "#place", photoHref: "#photo-file", requestBase: ""
      });
      if (answer.diagnosis) state.diagnosis = answer.diagnosis;
      if (shown.diagnosis && !answer.diagnosis.symptom && description) {
        // Not a symptom: perhaps a question ("how much is a new insulated door?"); the answerer has a go.
        return answered(description, shown, name, still).then(function () { keepInAddress(); });
      }
      if (shown.diagnosis) show(regions.ask, [shown.diagnosis], !still && name === "ask");
      if (shown.pro) show(regions.pro, [shown.pro, otherPlaces(answer.route)], !still && name === "pro");
      keepInAddress();
    }).catch(failed(name, !still)).then(function () { busy(name, false); });
  }

  /** The ask tool's answer to words that name no symptom, or the no-match card when it has none either. */
  function answered(question, shown, name, still) {
    return ask("ask", { question: question }).then(function (reply) {
      var card = reply.kind === "unknown" ? shown.diagnosis : cards.answerCard(reply);
      show(regions.ask, [card], !still && name === "ask");
      if (shown.pro) show(regions.pro, [shown.pro], false);
    });
  }

  function readAsBase64(blob) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () { resolve(String(reader.result).split(",", 2)[1] || ""); };
      reader.onerror = function () { reject(reader.error); };
      reader.readAsDataURL(blob);
    });
  }

  /** A phone photo small enough to send: as it is when it fits, else scaled to PHOTO_EDGE px as JPEG. */
  function preparePhoto(file) {
    var fits = file.size <= PHOTO_BYTES;
    if (fits || !window.createImageBitmap) return readAsBase64(file).then(function (data) {
      return { data: data, mimeType: file.type || "application/octet-stream" };
    });
    return createImageBitmap(file).then(function (bitmap) {
      var scale = Math.min(1, PHOTO_EDGE / Math.max(bitmap.width, bitmap.height));
      var canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      return new Promise(function (resolve) { canvas.toBlob(resolve, "image/jpeg", 0.85); });
    }).then(function (blob) {
      return readAsBase64(blob).then(function (data) { return { data: data, mimeType: "image/jpeg" }; });
    }, function () {
      return readAsBase64(file).then(function (data) { return { data: data, mimeType: file.type }; });
    });
  }

  function checkPhoto() {
    var file = byId("photo-file").files[0];
    if (!file) {
      show(regions.photo, [cards.message(words.errors.image_missing)], true);
      return Promise.resolve();
    }
    var description = byId("photo-words").value.trim();
    busy("photo", true);
    return preparePhoto(file).then(function (image) {
      var body = { image: image };
      if (description) body.description = description;
      return ask("visualDiagnose", body);
    }).then(function (verdict) {
      var cost = verdict.issueKey ? ask("costEstimate", { issueKey: verdict.issueKey }) : Promise.resolve(null);
      return cost.then(function (estimate) {
        show(regions.photo, [cards.verdictCard(verdict, {
          cost: estimate, galleryHref: verdict.referenceItemId ? "/parts/" + verdict.referenceItemId : null
        })], true);
      });
    }).catch(failed("photo", true)).then(function () { busy("photo", false); });
  }

  forms.ask.addEventListener("submit", function (event) {
    event.preventDefault();
    var chip = event.submitter && event.submitter.name === "chip" ? event.submitter.value : "";
    var field = byId("description");
    if (chip) field.value = chip;
    var text = field.value.trim();
    if (!text) {
      show(regions.ask, [cards.message(words.errors.describe)], true);
      return;
    }
    journey(text, state.place, "ask");
  });

  forms.pro.addEventListener("submit", function (event) {
    event.preventDefault();
    var place = byId("place").value.trim();
    if (!place) {
      show(regions.pro, [cards.message(words.errors.unknown_location)], true);
      return;
    }
    journey(state.description, place, "pro");
  });

  // A size chosen (or changed) after the answer prices the causes again, and goes with the place form.
  forms.ask.addEventListener("change", function (event) {
    if (event.target.name !== "size") return;
    setField(forms.pro, "size", event.target.value);
    keepInAddress();
    if (state.description || state.place) journey(state.description, state.place, "ask", true);
  });

  // A diagnosis link opened: the server showed the answer; the script takes it up so later steps build on it.
  (function reopen() {
    var query = new URLSearchParams(window.location.search);
    var size = query.get("size");
    if (size) {
      var radio = forms.ask.querySelector("input[name=size][value='" + size.replace(/[^0-9x.]/g, "") + "']");
      if (radio) radio.checked = true;
    }
    if (query.get("place")) state.place = query.get("place");
    if (query.get("q")) journey(query.get("q"), state.place, "ask");
    else if (state.place) journey("", state.place, "pro", true);
  })();

  forms.photo.addEventListener("submit", function (event) {
    event.preventDefault();
    checkPhoto();
  });
})();
