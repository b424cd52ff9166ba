// The inspection form: collect the answers, post them as JSON to /api/v1/submitInspection (the same
// API agents use) and show the report link. Also the report page's print button.
// Served from /static: the pages' Content-Security-Policy allows no inline script.
(() => {
  "use strict";

  const printButton = document.querySelector("[data-print]");
  if (printButton) {
    printButton.hidden = false;
    printButton.addEventListener("click", () => window.print());
  }

  const form = document.getElementById("inspection-form");
  if (!form) return;

  const status = document.getElementById("form-status");
  const submit = document.getElementById("submit");
  const result = document.getElementById("result");

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
      link(`tel:${number}`, `Call ${pro.name}`, false);
    }
    if (pro.bookingUrl) link(pro.bookingUrl, "Book online", true);
  };

  const showReport = (report) => {
    const urgent = report.nextStep.action === "call_a_pro_now";
    document.getElementById("result-grade").textContent = report.grade;
    document.getElementById("result-label").textContent = report.gradeLabel;
    document.getElementById("result-next").textContent = report.nextStep.text;
    document.getElementById("result-stop").hidden = !urgent;
    showPro(report.nextStep.localPro);
    const link = document.getElementById("result-link");
    link.href = report.reportUrl;
    link.textContent = "Open your report";
    document.getElementById("result-email").textContent = report.emailQueued
      ? "We are e-mailing you the report too. Keep the link: anyone with it can read the report."
      : "Keep the link: anyone with it can read the report.";
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

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.hidden = true;
    if (!form.reportValidity()) return;
    const body = collect();
    if (Object.keys(body.items).length === 0) {
      showProblem("Mark at least one of the 24 points as OK, Watch or Fix.");
      return;
    }
    submit.disabled = true;
    submit.textContent = "Sending…";
    try {
      let { response, answer } = await send(body);
      if (!response.ok && answer && answer.error && answer.error.code === "invalid_header") {
        // The key went with different answers before (edited after a lost reply): this is a new submission.
        idempotencyKey = newKey();
        ({ response, answer } = await send(body));
      }
      if (response.ok && answer) {
        showReport(answer);
        idempotencyKey = newKey();
      } else if (answer && answer.error) {
        showProblem(answer.error.message, answer.error.details);
      } else {
        showProblem(`The service answered ${response.status}. Please try again.`);
      }
    } catch {
      showProblem("Could not reach the service. Check your connection and press the button again: nothing is sent twice.");
    } finally {
      submit.disabled = false;
      submit.textContent = "Get my report";
    }
  });
})();
