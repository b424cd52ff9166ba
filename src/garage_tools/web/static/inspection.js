// The inspection form: collect the answers, post them as JSON to /api/v1/submitInspection (the same
// API agents use) and show the report link. Answers are kept in this browser as they are given (a reload
// or a dropped tab loses nothing), progress is announced, and the checks that move the door are not asked
// once a part under tension is marked Fix. Also the report page's print, copy-link and share buttons.
// Served from /static: the pages' Content-Security-Policy allows no inline script. The words it shows come
// from the page, translated there (the form's data-words, the share status's data-copied), and the
// submission asks for the report in the page's language (<html lang>).
(() => {
  "use strict";

  for (const printButton of document.querySelectorAll("[data-print]")) {
    printButton.hidden = false;
    printButton.addEventListener("click", () => window.print());
  }

  // The report's address: copied, or handed to the phone's share sheet where the browser has one.
  const shareStatus = document.getElementById("share-status");
  const said = (message) => {
    if (shareStatus) shareStatus.textContent = message;
  };
  const language = document.documentElement.lang || "en";
  const copyButton = document.querySelector("[data-copy-link]");
  if (copyButton && navigator.clipboard) {
    copyButton.hidden = false;
    copyButton.addEventListener("click", () =>
      navigator.clipboard.writeText(window.location.href).then(
        () => said(shareStatus.dataset.copied),
        () => said(shareStatus.dataset.notCopied),
      ),
    );
  }
  const shareButton = document.querySelector("[data-share]");
  if (shareButton && navigator.share) {
    shareButton.hidden = false;
    shareButton.addEventListener("click", () =>
      navigator.share({ title: document.title, url: window.location.href }).catch(() => undefined),
    );
  }

  const form = document.getElementById("inspection-form");
  if (!form) return;

  const status = document.getElementById("form-status");
  const submit = document.getElementById("submit");
  const result = document.getElementById("result");
  const items = Array.from(form.querySelectorAll("fieldset[data-item]"));
  const words = JSON.parse(form.dataset.words || "{}");
  // A sentence from data-words with its {name} slots filled.
  const say = (name, values = {}) =>
    words[name].replace(/\{(\w+)\}/g, (slot, key) => (key in values ? String(values[key]) : slot));

  // A refusal in the page's words: a limit or an outage reads the same in every language; what was wrong with
  // the answers is the service's own message (it names the field) on an English page, a plain sentence otherwise.
  const refusal = (response, answer) => {
    if (response.status === 429) {
      const limits = response.headers.get("RateLimit") || "";
      if (/"photos-[^"]*";r=0(;|,|$)/.test(limits)) return { message: say("photoCapReached") };
      return { message: say("tooMany", { seconds: response.headers.get("Retry-After") || "60" }) };
    }
    if (response.status >= 500 || !answer || !answer.error) return { message: say("tryAgain") };
    if (language === "en") return { message: answer.error.message, details: answer.error.details };
    return { message: say("invalid") };
  };

  // --- progress: "12 of 24 checked", announced politely as it changes ---
  const progress = document.getElementById("progress");
  const fill = document.getElementById("progress-fill");
  const answered = () => items.filter((fieldset) => {
    const chosen = fieldset.querySelector("input[type=radio]:checked");
    return chosen && chosen.value !== "";
  }).length;
  const showProgress = () => {
    const done = answered();
    const checked = say("checked", { done, total: items.length });
    if (progress.textContent !== checked) progress.textContent = checked;
    fill.style.width = `${Math.round((done / items.length) * 100)}%`;
  };

  // --- the safety order: no check that moves the door once a part under tension is marked Fix ---
  const tensionFixed = () =>
    items.some((fieldset) => "tension" in fieldset.dataset && fieldset.querySelector("input[value=fix]:checked"));
  const keepSafe = () => {
    const stop = tensionFixed();
    for (const fieldset of items.filter((candidate) => "handsOn" in candidate.dataset)) {
      fieldset.classList.toggle("skipped", stop);
      fieldset.querySelector("[data-skip]").hidden = !stop;
      for (const radio of fieldset.querySelectorAll("input[type=radio]")) {
        if (radio.value === "") {
          if (stop) radio.checked = true;
        } else {
          radio.disabled = stop;
        }
      }
    }
  };

  // --- answers kept in this browser as they are given ---
  const STORE = "garage-doors.inspection.v1";
  const RESUME_AT_ONCE_MS = 60 * 60 * 1000; // a reload or a dropped tab within the hour: back at once
  const storage = (() => {
    try {
      return window.localStorage;
    } catch {
      return null; // storage turned off: the form still works, it just forgets
    }
  })();
  const fields = () => Array.from(form.elements).filter((field) => field.name && field.type !== "submit");
  const snapshot = () => {
    const values = {};
    for (const field of fields()) {
      if (field.type === "radio") {
        if (field.checked) values[field.name] = field.value;
      } else if (field.type === "checkbox") {
        values[field.name] = field.checked;
      } else {
        values[field.name] = field.value;
      }
    }
    return values;
  };
  const save = () => {
    if (!storage) return;
    try {
      storage.setItem(STORE, JSON.stringify({ savedAt: Date.now(), values: snapshot() }));
    } catch {
      // full or refused: nothing to do, the answers are still on the page
    }
  };
  const forget = () => {
    if (storage) storage.removeItem(STORE);
  };
  const stored = () => {
    try {
      const found = storage && JSON.parse(storage.getItem(STORE) || "null");
      return found && typeof found.values === "object" ? found : null;
    } catch {
      return null;
    }
  };
  const restore = (values) => {
    for (const field of fields()) {
      if (!(field.name in values)) continue;
      const value = values[field.name];
      if (field.type === "radio") field.checked = field.value === value;
      else if (field.type === "checkbox") field.checked = value === true;
      else if (typeof value === "string") field.value = value;
    }
    for (const note of form.querySelectorAll("details.note")) {
      if (note.querySelector("textarea").value.trim()) note.open = true;
    }
    keepSafe();
    showProgress();
  };

  const notice = document.getElementById("saved-notice");
  const noticeText = document.getElementById("saved-text");
  const resume = document.getElementById("saved-resume");
  const discard = document.getElementById("saved-discard");
  const countIn = (values) => items.filter((fieldset) => values[`item-${fieldset.dataset.item}`]).length;
  const offerSaved = () => {
    const found = stored();
    if (!found || countIn(found.values) === 0) return;
    const when = new Date(found.savedAt);
    const count = say("checked", { done: countIn(found.values), total: items.length });
    if (Date.now() - found.savedAt < RESUME_AT_ONCE_MS) {
      restore(found.values);
      noticeText.textContent = say("back", { count });
      resume.hidden = true;
    } else {
      const day = when.toLocaleDateString(language, { month: "long", day: "numeric" });
      const time = when.toLocaleTimeString(language, { hour: "numeric", minute: "2-digit" });
      noticeText.textContent = say("started", { day, time, count });
      resume.hidden = false;
      resume.onclick = () => {
        restore(found.values);
        notice.hidden = true;
        progress.scrollIntoView({ block: "center" });
      };
    }
    notice.hidden = false;
  };
  discard.addEventListener("click", () => {
    forget();
    form.reset();
    keepSafe();
    showProgress();
    notice.hidden = true;
  });

  const changed = (event) => {
    if (event.target.type === "radio") keepSafe();
    showProgress();
    save();
    if (!resume.hidden) notice.hidden = true; // answering anew: the old inspection is no longer offered
  };
  form.addEventListener("change", changed);
  form.addEventListener("input", changed);
  offerSaved();
  keepSafe();
  showProgress();

  // One key per inspection: a retry after a lost answer gets the same report, not a second one.
  const newKey = () =>
    window.crypto && crypto.randomUUID
      ? crypto.randomUUID()
      : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  let idempotencyKey = newKey();

  const text = (name) => {
    const value = form.elements[name].value.trim();
    return value === "" ? undefined : value;
  };

  const collect = () => {
    const items = {};
    for (const fieldset of form.querySelectorAll("fieldset[data-item]")) {
      const id = fieldset.dataset.item;
      const chosen = fieldset.querySelector("input[type=radio]:checked");
      if (!chosen || chosen.value === "") continue;
      const note = form.elements[`note-${id}`].value.trim();
      items[id] = note ? { status: chosen.value, note } : { status: chosen.value };
    }
    const door = { size: text("size"), yearInstalled: text("yearInstalled"), motorBrand: text("motorBrand") };
    const body = {
      recipient: { email: form.elements.email.value.trim(), zip: form.elements.zip.value.trim() },
      consent: { marketing: form.elements.marketing.checked, contactShare: form.elements.contactShare.checked },
      items,
      emailReport: form.elements.emailReport.checked,
      lang: language,
    };
    if (text("name")) body.recipient.name = text("name");
    if (Object.values(door).some((value) => value !== undefined)) body.door = door;
    if (text("notes")) body.notes = text("notes");
    return body;
  };

  const showProblem = (message, details) => {
    status.textContent = "";
    status.append(message);
    if (details && details.length) {
      const list = document.createElement("ul");
      for (const detail of details) {
        const entry = document.createElement("li");
        entry.textContent = `${detail.field}: ${detail.message}`;
        list.append(entry);
      }
      status.append(list);
    }
    status.hidden = false;
    status.scrollIntoView({ behavior: "smooth", block: "center" });
  };

  // Who to call, as links: the sentence in nextStep.text names them too, for reading aloud.
  const showPro = (pro) => {
    const holder = document.getElementById("result-pro");
    holder.replaceChildren();
    holder.hidden = !pro;
    if (!pro) return;
    const link = (href, label, quiet) => {
      const anchor = document.createElement("a");
      anchor.href = href;
      anchor.textContent = label;
      anchor.className = quiet ? "button quiet" : "button";
      holder.append(anchor);
    };
    if (pro.phone) {
      const digits = pro.phone.replace(/[^0-9]/g, "");
      const number = pro.phone.trim().startsWith("+") ? `+${digits}` : digits.length === 10 ? `+1${digits}` : digits;
      link(`tel:${number}`, say("callPro", { name: pro.name }), false);
    }
    if (pro.bookingUrl) link(pro.bookingUrl, say("bookOnline"), true);
  };

  const showReport = (report) => {
    const urgent = report.nextStep.action === "call_a_pro_now";
    document.getElementById("result-grade").textContent = report.grade;
    document.getElementById("result-score").textContent = String(report.score);
    document.getElementById("result-label").textContent = report.gradeLabel;
    document.getElementById("result-next").textContent = report.nextStep.text;
    document.getElementById("result-stop").hidden = !urgent;
    showPro(report.nextStep.localPro);
    const link = document.getElementById("result-link");
    link.href = report.reportUrl;
    link.textContent = say("openReport");
    document.getElementById("result-email").textContent = say(report.emailQueued ? "emailed" : "keepLink");
    form.hidden = true;
    result.hidden = false;
    // Focus follows the answer, so keyboard and screen-reader users land on it (the form is gone).
    result.focus({ preventScroll: true });
    result.scrollIntoView({ behavior: "smooth", block: "start" });
  };

  const send = async (body) => {
    const response = await fetch("/api/v1/submitInspection", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": idempotencyKey },
      body: JSON.stringify(body),
    });
    return { response, answer: await response.json().catch(() => null) };
  };

  // --- an optional photo per item, checked with the photo tool when the person asks ---
  const severityWords = JSON.parse(form.dataset.severity || "{}");
  const MAX_PHOTO_BYTES = 5 * 1024 * 1024; // the photo tool's limit
  for (const box of form.querySelectorAll("details.item-photo")) {
    const input = box.querySelector("input[type=file]");
    const preview = box.querySelector("img");
    const check = box.querySelector("[data-check-photo]");
    const verdict = box.querySelector(".item-photo-verdict");
    let image = null;
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      image = null;
      preview.hidden = check.hidden = true;
      verdict.textContent = "";
      if (!file || !file.type.startsWith("image/")) return;
      if (file.size > MAX_PHOTO_BYTES) {
        verdict.textContent = say("tooBig");
        return;
      }
      const reader = new FileReader();
      reader.addEventListener("load", () => {
        const url = String(reader.result);
        image = { data: url.slice(url.indexOf(",") + 1), mimeType: file.type };
        preview.src = url;
        preview.hidden = check.hidden = false;
      });
      reader.readAsDataURL(file);
    });
    check.addEventListener("click", async () => {
      if (!image) return;
      check.disabled = true;
      verdict.textContent = say("checking");
      try {
        const response = await fetch("/api/v1/visualDiagnose", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ image, description: box.dataset.photoItem, lang: language }),
        });
        const answer = await response.json().catch(() => null);
        if (response.ok && answer) {
          const problems = (answer.photo && answer.photo.problems) || [];
          verdict.textContent = [`${severityWords[answer.severity] || ""}: ${answer.partLabel}, ${answer.condition}.`,
            answer.explanation, ...problems].filter(Boolean).join(" ");
        } else {
          verdict.textContent = refusal(response, answer).message || say("notChecked");
        }
      } catch {
        verdict.textContent = say("offline");
      } finally {
        check.disabled = false;
      }
    });
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.hidden = true;
    if (!form.reportValidity()) return;
    const body = collect();
    if (Object.keys(body.items).length === 0) {
      showProblem(say("markOne"));
      return;
    }
    submit.disabled = true;
    submit.textContent = say("sending");
    try {
      let { response, answer } = await send(body);
      if (!response.ok && answer && answer.error && answer.error.code === "invalid_header") {
        // The key went with different answers before (edited after a lost reply): this is a new submission.
        idempotencyKey = newKey();
        ({ response, answer } = await send(body));
      }
      if (response.ok && answer) {
        forget(); // sent: the next visit starts a new inspection
        showReport(answer);
        idempotencyKey = newKey();
      } else {
        const { message, details } = refusal(response, answer);
        showProblem(message, details);
      }
    } catch {
      showProblem(say("unreachable"));
    } finally {
      submit.disabled = false;
      submit.textContent = say("submit");
    }
  });
})();
