/* Result cards for a tool's answer: diagnosis, local pro with offers, photo verdict, and `journeyCards`,
 * which lays out homeownerAnswer's answer (the homeowner's journey, tools/journey.py) as those cards.
 *
 * Shared: the homeowner page at / uses them, and the contractor widget (/widget.js) bundles this file
 * (web/widget.py, with `window` shadowed so it adds no global to the host page) and shows the cards inside
 * a shadow root on other sites, under a strict CSP. So: pure DOM builders (a tool's JSON and options in,
 * an element out), text set with textContent only, no globals but `GarageResults`, no inline styles, no
 * reliance on the host page's CSS (components/results.css styles the `gdr-` classes). `refusal` words a
 * refused call for people the same way on both.
 * templates/components/results.html renders the same markup on the server for pages without script;
 * keep the two in step (tests/e2e/test_home_browser.py compares them).
 * The words come from components/results-words.json, passed to `GarageResults.create(words)`.
 */
(function (root) {
  "use strict";

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }

  function fill(template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  function money(amount) {
    return "$" + Math.round(Number(amount)).toLocaleString("en-US");
  }

  function costRange(range) {
    return money(range.min) + "\u2013" + money(range.max);
  }

  /** `tel:` link for a US number as written in the directory, e.g. "(435) 555-0102". */
  function telHref(phone) {
    var digits = String(phone).replace(/[^0-9+]/g, "");
    if (/^[0-9]{10}$/.test(digits)) digits = "+1" + digits;
    return "tel:" + digits;
  }

  /** "2030-12-31" -> "December 31, 2030" (the date as written, in no time zone). */
  /** `2030-12-31` in the words' language: "December 31, 2030" (web/results.py `long_date` says the same). */
  function longDate(iso, words) {
    var parts = String(iso).split("-");
    return fill(words.longDate, { month: words.months[Number(parts[1]) - 1], day: Number(parts[2]), year: parts[0] });
  }

  /** A routed place as people write it: "Saint George, UT". */
  function placeName(location) {
    return location.city + ", " + location.state;
  }

  function link(href, className, text) {
    var a = el("a", className, text);
    a.href = href;
    return a;
  }

  function create(words) {
    function title(level, text) {
      var heading = el("h" + (level || 2), "gdr-title", text);
      heading.tabIndex = -1; // focus moves here when the card arrives
      return heading;
    }

    function subtitle(level, text) {
      return el("h" + ((level || 2) + 1), "gdr-subtitle", text);
    }

    function safetyBox() {
      return add(el("div", "gdr-safety"), el("p", "gdr-safety-title", words.safetyTitle),
        el("p", "gdr-safety-text", words.safetyText));
    }

    function cost(range, basis) {
      return add(el("p", "gdr-cost"), el("strong", "gdr-cost-range", costRange(range)),
        el("span", "gdr-cost-basis", " " + basis));
    }

    /** The cost basis sentence: national from diagnose, local or national once a ZIP code is known. */
    function costBasis(estimate, place) {
      if (!estimate) return words.costTypical;
      return fill(estimate.region ? words.costLocal : words.costNational, { place: place });
    }

    /** What a local price covers, the door size it is for, and (when urgent) what a call-out today adds. */
    function costDetails(estimate, urgent) {
      var box = el("div", "gdr-cost-details");
      if (estimate.covers) add(box, el("p", "gdr-covers", fill(words.costCovers, { covers: estimate.covers })));
      if (estimate.doorSize) add(box, el("p", "gdr-size", fill(words.costSize, { width: estimate.doorSize.widthFt })));
      if (urgent && estimate.emergencySurcharge) {
        add(box, el("p", "gdr-surcharge", fill(words.costSurcharge, { range: costRange(estimate.emergencySurcharge) })));
      }
      return box;
    }

    function photos(level, gallery, href) {
      var shown = (gallery.photos || []).filter(function (p) { return p.severity === "HEALTHY" || p.severity === "FIX"; });
      var row = el("div", "gdr-photos");
      shown.forEach(function (photo) {
        var img = el("img", "gdr-photo-img");
        img.src = photo.url;
        img.alt = photo.alt;
        img.width = photo.width;
        img.height = photo.height;
        img.loading = "lazy";
        add(row, add(el("figure", "gdr-photo"), img, el("figcaption", "gdr-photo-caption", photo.caption)));
      });
      return [subtitle(level, words.photosHeading), row,
        href ? add(el("p", "gdr-more"), link(href, "gdr-link", words.photosLink)) : null];
    }

    /**
     * diagnose's answer as a card.
     * options: level (heading level, 2), costs ({issueKey: costEstimate answer}), place (what the costs
     * were priced for), gallery (getInspectionReferencePhotos answer), galleryHref, proHref (where a
     * door unsafe to use, or a description nothing matched, points to find a pro) and photoHref (where the
     * card for a description nothing matched points to check a photo).
     */
    function diagnosisCard(diagnosis, options) {
      var o = options || {};
      var level = o.level || 2;
      var card = el("section", "gdr-card gdr-diagnosis");
      if (!diagnosis.symptom) {
        // One voice, and never a dead end: the ways forward, in the card's own words (not the tool's hint).
        card.className += " gdr-nomatch";
        var ways = el("p", "gdr-actions");
        if (o.photoHref) add(ways, link(o.photoHref, "gdr-button gdr-book", words.noMatchPhoto));
        if (o.proHref) add(ways, link(o.proHref, "gdr-button gdr-call", words.noMatchPro));
        return add(card, title(level, words.noMatchTitle), el("p", "gdr-hint", words.noMatchText), ways);
      }
      var urgency = diagnosis.symptom.urgency || "routine";
      var issues = diagnosis.likelyIssues || [];
      add(card, el("p", "gdr-symptom", diagnosis.symptom.label),
        title(level, issues.length ? fill(words.likelyTitle, { issue: issues[0].name }) : diagnosis.symptom.label),
        el("p", "gdr-urgency gdr-urgency-" + urgency, words.urgency[urgency]));
      if (diagnosis.safetyFlag) add(card, safetyBox());
      if (diagnosis.safetyFlag && o.proHref) {
        add(card, add(el("p", "gdr-jump"), link(o.proHref, "gdr-button gdr-call", words.findPro)));
      }
      var list = el("ol", "gdr-causes");
      issues.forEach(function (issue) {
        var estimate = o.costs && o.costs[issue.key];
        add(list, add(el("li", "gdr-cause"),
          el("p", "gdr-cause-name", issue.name),
          cost(estimate ? estimate.costRange : issue.costRange, costBasis(estimate, o.place)),
          estimate ? costDetails(estimate, urgency === "emergency") : null,
          el("p", "gdr-cause-text", issue.description),
          el("p", "gdr-diy gdr-diy-" + issue.diyRisk, words.diy[issue.diyRisk]),
          issue.safetyNote ? el("p", "gdr-note", issue.safetyNote) : null));
      });
      add(card, subtitle(level, words.causesHeading), list);
      if (o.gallery) photos(level, o.gallery, o.galleryHref).forEach(function (node) { add(card, node); });
      return card;
    }

    function offersList(level, promotions) {
      var list = el("ul", "gdr-offers");
      promotions.promotions.forEach(function (offer) {
        var terms = fill(words.offerUntil, { date: longDate(offer.validUntil, words) }) + (offer.terms ? " " + offer.terms : "");
        add(list, add(el("li", "gdr-offer"),
          el("p", "gdr-offer-badge", offer.discount.label),
          el("p", "gdr-offer-title", offer.title),
          offer.description ? el("p", "gdr-offer-text", offer.description) : null,
          el("p", "gdr-offer-terms", terms)));
      });
      return [subtitle(level, words.offersHeading), list];
    }

    /**
     * routeByZip's answer as a card: the pro (or the nearest one), a call link and a booking link.
     * options: level, promotions (getActivePromotions answer), urgent (the diagnosis said stop using the door),
     * extra (a hook: function (route, level) returning a node to add under the pro's call and booking links,
     * or null), requestBase (where the "ask this pro to come out" form is: "" on the service's own pages, the
     * service's origin in the widget; null for no such button), issue (the symptom key, for that form).
     */
    function partnerCard(route, options) {
      var o = options || {};
      var level = o.level || 2;
      var card = el("section", "gdr-card gdr-partner");
      var choice = route.covered ? route : route.nearest;
      add(card, title(level, route.covered ? words.proHeading : words.proNearestHeading));
      if (!route.covered && route.hint) add(card, el("p", "gdr-hint", route.hint));
      if (!choice) return card;
      var partner = choice.partner;
      var miles = route.covered ? route.distanceMiles : choice.distanceMiles;
      var area = miles === undefined || miles === null
        ? fill(words.proAreaOnly, { region: choice.region })
        : fill(words.proArea, { region: choice.region, miles: miles });
      add(card, el("p", "gdr-partner-name", partner.displayName), el("p", "gdr-partner-area", area));
      var facts = trustFacts(partner);
      if (facts.length) add(card, el("p", "gdr-partner-trust", facts.join(" · ")));
      if (o.urgent && route.covered) add(card, el("p", "gdr-partner-urgent", words.proUrgent));
      var actions = add(el("p", "gdr-actions"),
        link(telHref(partner.phone), "gdr-button gdr-call", fill(words.call, { phone: partner.phone })));
      if (partner.schedulerUrl) add(actions, link(partner.schedulerUrl, "gdr-button gdr-book", words.book));
      else if (partner.url) add(actions, link(partner.url, "gdr-button gdr-book", words.website));
      add(card, actions);
      if (route.covered && o.requestBase !== undefined && o.requestBase !== null) {
        add(card, add(el("p", "gdr-actions"),
          link(requestHref(route, o.issue, o.requestBase), "gdr-button gdr-request", words.askPro)));
      }
      if (o.extra) add(card, o.extra(route, level));
      if (o.promotions && o.promotions.promotions && o.promotions.promotions.length) {
        offersList(level, o.promotions).forEach(function (node) { add(card, node); });
      }
      // Last, so the offers above read as the chosen pro's.
      if (route.covered && (route.alternatives || []).length) add(card, otherPros(route, o, level));
      return card;
    }

    /** What the pro told us of themselves, in a line (web/results.py `trust_facts` says the same). */
    function trustFacts(partner) {
      var facts = [];
      if (partner.licenseNumber) facts.push(fill(words.trust.license, { number: partner.licenseNumber }));
      if (partner.insured === true) facts.push(words.trust.insured);
      if (typeof partner.yearsInBusiness === "number") {
        facts.push(partner.yearsInBusiness === 1 ? words.trust.oneYear
          : fill(words.trust.years, { years: partner.yearsInBusiness }));
      }
      if (partner.hours) facts.push(partner.hours);
      if (partner.guarantee) facts.push(partner.guarantee);
      return facts;
    }

    /** The other pros serving the place (routeByZip's `alternatives`, next best first), each with a call link and
     * the "ask them to come out" form when the card has one. */
    function otherPros(route, o, level) {
      var box = el("div", "gdr-other-pros");
      add(box, subtitle(level, words.otherProsHeading));
      var list = el("ul", "gdr-other-list");
      add(box, list);
      route.alternatives.forEach(function (other) {
        var item = el("li", "gdr-other");
        add(list, item);
        var area = other.distanceMiles === undefined || other.distanceMiles === null
          ? fill(words.proAreaOnly, { region: other.region })
          : fill(words.proArea, { region: other.region, miles: other.distanceMiles });
        add(item, el("p", "gdr-other-name", other.partner.displayName), el("p", "gdr-partner-area", area));
        var facts = trustFacts(other.partner);
        if (facts.length) add(item, el("p", "gdr-partner-trust", facts.join(" · ")));
        var actions = el("p", "gdr-actions");
        add(item, actions);
        add(actions, link(telHref(other.partner.phone), "gdr-button gdr-call",
          fill(words.call, { phone: other.partner.phone })));
        if (o.requestBase !== undefined && o.requestBase !== null) {
          add(actions, link(requestHref(route, o.issue, o.requestBase, other.partnerId), "gdr-button gdr-request",
            words.askThem));
        }
      });
      return box;
    }

    /** The "ask this pro to come out" form for a routed pro, or for `partnerId` among its alternatives
     * (web/results.py `request_href` builds the same). */
    function requestHref(route, issue, base, partnerId) {
      var query = "partner=" + encodeURIComponent(partnerId || route.partnerId) +
        "&zip=" + encodeURIComponent(route.location.zip);
      if (issue) query += "&issue=" + encodeURIComponent(issue);
      return base + "/requests/new?" + query;
    }

    /** A refused place in plain words (web/home.py `plain_error` says the same without script). */
    function placeProblem(problem, place) {
      var sentence = words.errors[problem.code];
      return sentence ? fill(sentence, { place: place || "" }) : words.errors.invalid;
    }

    /**
     * homeownerAnswer's answer as the cards of its two parts: {diagnosis, pro}, each an element or null.
     * The causes are priced for the routed place when there is one. options: level, place (as typed, for
     * a place that could not be read), photos (show the reference pictures), proHref and photoHref (see diagnosisCard),
     * proExtra (partnerCard's `extra` hook), requestBase (partnerCard's).
     */
    function journeyCards(answer, options) {
      var o = options || {};
      var route = answer.route;
      var costs = null;
      if (route) {
        costs = {};
        (answer.costs || []).forEach(function (estimate) { costs[estimate.issueKey] = estimate; });
      }
      var gallery = o.photos ? answer.referencePhotos : null;
      return {
        diagnosis: answer.diagnosis ? diagnosisCard(answer.diagnosis, {
          level: o.level, costs: costs, place: route ? placeName(route.location) : null, gallery: gallery,
          galleryHref: gallery ? "/parts/" + gallery.itemId : null, proHref: o.proHref, photoHref: o.photoHref
        }) : null,
        pro: answer.placeError ? message(placeProblem(answer.placeError, o.place))
          : route ? partnerCard(route, {
            level: o.level, promotions: answer.promotions, extra: o.proExtra, requestBase: o.requestBase,
            issue: answer.diagnosis && answer.diagnosis.symptom ? answer.diagnosis.symptom.key : null,
            urgent: !!(answer.diagnosis && answer.diagnosis.safetyFlag)
          }) : null
      };
    }

    /**
     * visualDiagnose's verdict as a card, in plain words.
     * options: level, cost (costEstimate answer for the verdict's issue), galleryHref.
     */
    function verdictCard(verdict, options) {
      var o = options || {};
      var level = o.level || 2;
      var severity = verdict.severity || "UNKNOWN";
      var heading = verdict.part === "unknown" ? words.verdictUnknownTitle
        : severity === "UNKNOWN" ? verdict.partLabel
          : fill(words.verdictTitle, { part: verdict.partLabel, condition: verdict.condition });
      var card = add(el("section", "gdr-card gdr-verdict"), title(level, heading),
        el("p", "gdr-severity gdr-severity-" + severity.toLowerCase(), words.severity[severity]));
      if (verdict.safetyFlag) add(card, safetyBox());
      if (verdict.method === "offline-heuristic") {
        add(card, el("p", "gdr-method", severity === "UNKNOWN" ? words.verdictOfflineNoWords : words.verdictOffline));
      } else {
        add(card, el("p", "gdr-explanation", verdict.explanation),
          el("p", "gdr-confidence", words.confidence[verdict.confidence]));
      }
      if (o.cost) add(card, el("p", "gdr-cost", fill(words.verdictCost, { range: costRange(o.cost.costRange) })));
      var problems = (verdict.photo && verdict.photo.problems) || [];
      if (problems.length) {
        var list = el("ul", "gdr-retake");
        problems.forEach(function (problem) { add(list, el("li", null, fill(words.retake, { problem: problem }))); });
        add(card, list);
      }
      if (o.galleryHref) add(card, add(el("p", "gdr-more"), link(o.galleryHref, "gdr-link", words.galleryLink)));
      return card;
    }

    /**
     * What to tell a person about a refused call, never the API's own wording (web/home.py says the same
     * for the page's forms). answer: {status (0 when the network failed), json, headers}; options: place
     * (what was typed, for unknown_location), photoCap (the name of the photo cap, to tell it from the rate limit).
     */
    function refusal(tool, answer, options) {
      var o = options || {};
      var error = (answer.json && answer.json.error) || {};
      if (answer.status === 0) return words.offline;
      if (answer.status === 429) {
        var limits = (answer.headers && answer.headers.get("RateLimit")) || "";
        // A full window of the photo cap (e.g. "photos-public-day";r=0) says which limit this was.
        if (o.photoCap && new RegExp('"' + o.photoCap + '-[^"]*";r=0(;|,|$)').test(limits)) return words.photoCapReached;
        return fill(words.tooMany, { seconds: (answer.headers && answer.headers.get("Retry-After")) || "60" });
      }
      if (answer.status >= 500) return words.errors[error.code] || words.tryAgain;
      if (words.errors[error.code]) return fill(words.errors[error.code], { place: o.place || "" });
      return tool === "diagnose" ? words.errors.describe : words.errors.invalid;
    }

    /** A sentence in place of a card: a refusal, an error or a notice. */
    /** The ask tool's answer to a question (results.html `answer_card` draws the same). */
    function answerCard(reply, options) {
      var level = (options && options.level) || 2;
      var card = add(el("section", "gdr-card gdr-answer"), title(level, words.answerHeading),
        el("p", "gdr-answer-text", reply.answer));
      var steps = (reply.nextSteps || []).filter(function (step) { return step.url; });
      if (steps.length) {
        var actions = el("p", "gdr-actions");
        steps.forEach(function (step, index) {
          add(actions, link(step.url, "gdr-button " + (index ? "gdr-book" : "gdr-call"), step.label));
        });
        add(card, actions);
      }
      if ((reply.sources || []).length) {
        var list = el("ol", "gdr-sources");
        reply.sources.forEach(function (source) {
          add(list, add(el("li"), source.url ? link(source.url, null, source.title) : document.createTextNode(source.title)));
        });
        add(card, subtitle(level, words.sourcesHeading), list);
      }
      return card;
    }

    function message(text, kind) {
      var note = el("p", "gdr-message gdr-message-" + (kind || "error"), text);
      note.tabIndex = -1;
      return note;
    }

    return {
      diagnosisCard: diagnosisCard,
      answerCard: answerCard,
      partnerCard: partnerCard,
      journeyCards: journeyCards,
      verdictCard: verdictCard,
      refusal: refusal,
      message: message,
      words: words
    };
  }

  root.GarageResults = { create: create, fill: fill, costRange: costRange, telHref: telHref, placeName: placeName };
})(window);
