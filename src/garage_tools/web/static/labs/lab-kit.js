// Shared helpers for the lab widgets: a small DOM builder, labelled controls with units, locale-aware
// number formatting, headline numbers in an aria-live region, result panels, an SVG figure to redraw and the
// two-column layout the calculators share. Loaded (defer) before each lab's own script, it defines one
// global, window.LabKit, and touches nothing by itself.
// CSP: the lab pages allow script-src 'self' and style-src 'self' only, so nothing here builds HTML
// strings, sets a style attribute or an on* attribute; styling goes through classes (labs.css) and the
// CSSOM (element.style.width), which the policy allows.
(() => {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  let counter = 0;

  /** A page-unique id, so labels and descriptions can point at their controls. */
  const uid = (prefix) => `lk-${prefix}-${++counter}`;

  const clamp = (value, min, max) => Math.min(max, Math.max(min, value));

  function setAttributes(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      // Refused by construction: the page's CSP blocks inline styles and handlers anyway.
      if (key === "style" || key.startsWith("on")) throw new Error(`LabKit: attribute ${key} is not allowed`);
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }

  function appendAll(node, children) {
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
  }

  /** el("p", {class: "lab-note", text: "..."}) or el("div", {class: "x"}, child, "text", ...). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttributes(node, attrs);
    appendAll(node, children);
    return node;
  }

  /** The same for SVG elements (diagrams and charts). */
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttributes(node, attrs);
    appendAll(node, children);
    return node;
  }

  /** A number in the reader's locale with a fixed count of decimals ("—" when it is not a number). */
  function fmt(value, digits = 0) {
    if (!Number.isFinite(value)) return "—";
    return value.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  /** US dollars in the reader's locale (the reference figures are USD). */
  function money(value, digits = 0) {
    if (!Number.isFinite(value)) return "—";
    return value.toLocaleString(undefined, {
      style: "currency",
      currency: "USD",
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
  }

  // label + control + optional hint; the hint describes `described` (the inputs) for screen readers.
  function fieldShell(id, label, unit, hint, control, described = [control], wide = false) {
    const hintId = hint ? `${id}-hint` : null;
    if (hintId) for (const input of described) input.setAttribute("aria-describedby", hintId);
    return el(
      "div",
      { class: wide ? "lab-field lk-full" : "lab-field" },
      el("label", { for: id }, label, unit ? el("span", { class: "lk-unit", text: ` (${unit})` }) : null),
      control,
      hint ? el("p", { class: "lk-hint", id: hintId, text: hint }) : null,
    );
  }

  /**
   * The box that takes exact values, in rangeField beside the slider and alone in numberField, so both bound,
   * clamp and settle typed values alike: read() clamps a typed value to the bounds and is `fallback()` while the
   * box holds no number; on leaving the box it shows the value actually used and calls `changed`.
   */
  function numberBox(id, { min, max, step, value }, extra, fallback, changed) {
    const input = el("input", {
      type: "number",
      id,
      class: "lk-number",
      min,
      max,
      step,
      value,
      inputmode: "decimal",
      ...extra,
    });
    const read = () => {
      const typed = input.valueAsNumber;
      return Number.isFinite(typed) ? clamp(typed, Number(min), Number(max)) : fallback();
    };
    input.addEventListener("change", () => {
      input.value = String(read());
      changed();
    });
    return { input, read };
  }

  /**
   * A slider with a number box beside it (the box takes exact values, the slider is quick by keyboard
   * or touch). Options: label, unit, min, max, step, value, hint, main (marks the slider data-lab-input),
   * wide (the field spans the whole row), onChange (called after every change).
   */
  function rangeField(options) {
    const { label, unit, min, max, step = 1, value, hint, main = false, wide = false, onChange } = options;
    const id = uid("range");
    const range = el("input", { type: "range", id, min, max, step, value, "data-lab-input": main });
    const changed = () => onChange && onChange();
    const exact = { "aria-label": unit ? `${label} (${unit}), exact value` : `${label}, exact value` };
    const bounds = { min, max, step, value };
    const { input: number, read } = numberBox(undefined, bounds, exact, () => range.valueAsNumber, changed);
    const pair = el("div", { class: "lk-pair" }, range, number);
    range.addEventListener("input", () => {
      number.value = range.value;
      changed();
    });
    number.addEventListener("input", () => {
      if (Number.isFinite(number.valueAsNumber)) range.value = String(read());
      changed();
    });
    const field = fieldShell(id, label, unit, hint, pair, [range, number], wide);
    return {
      element: field,
      input: range,
      read,
      set(next) {
        range.value = String(next);
        number.value = String(next);
      },
    };
  }

  /** A number box (for money and other values a slider would make awkward). Same options as rangeField. */
  function numberField(options) {
    const { label, unit, min, max, step = 1, value, hint, main = false, wide = false, onChange } = options;
    const id = uid("number");
    const changed = () => onChange && onChange();
    const bounds = { min, max, step, value };
    const { input, read } = numberBox(id, bounds, { "data-lab-input": main }, () => Number(value), changed);
    input.addEventListener("input", changed);
    return {
      element: fieldShell(id, label, unit, hint, input, [input], wide),
      input,
      read,
      set: (next) => (input.value = String(next)),
    };
  }

  /**
   * How often the door runs, in cycles (one open plus one close) a day: the one slider the springs and
   * spring-fatigue labs share, so both span the same range from the same typical 4 a day (domain facts 5.2).
   * Options as rangeField's, for what differs (main, hint, onChange).
   */
  function cyclesPerDayField(options) {
    const typical = { label: "Cycles per day", unit: "open + close", min: 1, max: 20, step: 1, value: 4 };
    return rangeField({ ...typical, ...options });
  }

  /** A select; choices are [{value, label}]. read() gives the chosen choice object. */
  function selectField(options) {
    const { label, unit, choices, value, hint, main = false, wide = false, onChange } = options;
    const id = uid("select");
    const select = el(
      "select",
      { id, "data-lab-input": main },
      choices.map((choice, index) =>
        el("option", { value: String(index), selected: String(choice.value) === String(value), text: choice.label }),
      ),
    );
    select.addEventListener("change", () => onChange && onChange());
    return {
      element: fieldShell(id, label, unit, hint, select, [select], wide),
      input: select,
      read: () => choices[select.selectedIndex],
    };
  }

  /** A checkbox with its label on the right. */
  function checkField(options) {
    const { label, checked = false, onChange } = options;
    const id = uid("check");
    const input = el("input", { type: "checkbox", id, checked });
    input.addEventListener("change", () => onChange && onChange());
    const element = el("div", { class: "lab-field lk-check" }, input, el("label", { for: id, text: label }));
    return { element, input, read: () => input.checked };
  }

  /** A fieldset of fields (what rangeField and friends return) laid out by .lab-controls. */
  function group(legend, fields, layout = "lab-controls") {
    return el(
      "fieldset",
      { class: "lk-group" },
      el("legend", { text: legend }),
      el(
        "div",
        { class: layout },
        fields.map((field) => field.element),
      ),
    );
  }

  /**
   * A results panel (.lab-panel) holding a <dl>. row(label) adds a row and returns its <dd>; {main: true} marks
   * the one row that is data-lab-output. Not a live region: the headline stats() announce the changes, and
   * a second region reading the whole list on every slider step would drown them out.
   */
  function results(title) {
    const list = el("dl", { class: "lk-results" });
    const element = el("div", { class: "lab-panel lk-panel" }, title ? el("h3", { text: title }) : null, list);
    return {
      element,
      row(label, options = {}) {
        const main = options.main || false;
        const value = el("dd", { class: main ? "lk-main" : null, "data-lab-output": main });
        list.append(el("dt", { class: main ? "lk-main" : null, text: label }), value);
        return value;
      },
    };
  }

  /** Headline numbers as cards (.lab-stats); stat(label) returns the element to fill. Inside an aria-live region. */
  function stats() {
    const element = el("div", { class: "lab-stats", role: "status", "aria-live": "polite" });
    return {
      element,
      stat(label, options = {}) {
        const value = el("span", { class: "lab-stat-value", "data-lab-output": options.main || false });
        element.append(el("div", { class: "lab-stat" }, el("span", { class: "lab-stat-label", text: label }), value));
        return value;
      },
    };
  }

  /**
   * The calculators' headline: {key: label} in display order becomes stats() cards, the first of them the
   * lab's main output (data-lab-output). Returns {element, cards}, cards[key] being the element to fill.
   */
  function headline(labels) {
    const head = stats();
    const cards = {};
    Object.entries(labels).forEach(([key, label], index) => {
      cards[key] = head.stat(label, { main: index === 0 });
    });
    return { element: head.element, cards };
  }

  /** A results() panel with its rows named up front: {key: label} in display order; returns {element, rows}. */
  function resultRows(title, labels) {
    const panel = results(title);
    const rows = {};
    for (const [key, label] of Object.entries(labels)) rows[key] = panel.row(label);
    return { element: panel.element, rows };
  }

  /** A horizontal bar; set(fraction) fills it (0..1) through the CSSOM, which the CSP permits. */
  function bar(className) {
    const fill = el("span", { class: "lk-bar-fill" });
    const element = el("span", { class: `lk-bar ${className || ""}`.trim(), "aria-hidden": "true" }, fill);
    return { element, set: (fraction) => (fill.style.width = `${(clamp(fraction, 0, 1) * 100).toFixed(1)}%`) };
  }

  /**
   * A scalable SVG figure (.lk-figure) of width x height units, described for screen readers by `label`. Its
   * drawing is redrawn whole: layer is the <g> whose children a lab replaces on every change.
   */
  function figure(width, height, label) {
    const layer = svg("g");
    const attrs = { class: "lk-figure", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label };
    return { element: svg("svg", attrs, layer), layer };
  }

  // The calculators' page: two columns (.lab-split, one on a phone), each usually a stack of panels.
  const split = (left, right) => el("div", { class: "lab-split" }, left, right);
  const stack = (...children) => el("div", { class: "lk-stack" }, ...children);
  const panel = (...children) => el("div", { class: "lab-panel" }, ...children);
  /** A note under the results: a source, a caveat, or with {warn: true} a safety warning. */
  const note = (text, options = {}) => el("p", { class: options.warn ? "lab-note lk-warn" : "lab-note", text });

  /**
   * Find #lab-interactive and build the widget in it: build(root) returns the nodes to show. Waits for the
   * document if the script was loaded without defer; does nothing on a page without the section.
   */
  function start(build) {
    const run = () => {
      const root = document.getElementById("lab-interactive");
      if (!root) return;
      const nodes = build(root);
      root.replaceChildren(el("div", { class: "lk-lab" }, nodes));
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run, { once: true });
    else run();
  }

  window.LabKit = Object.freeze({
    el,
    svg,
    set: setAttributes,
    fmt,
    money,
    clamp,
    uid,
    rangeField,
    numberField,
    selectField,
    checkField,
    cyclesPerDayField,
    group,
    results,
    resultRows,
    stats,
    headline,
    bar,
    figure,
    split,
    stack,
    panel,
    note,
    start,
  });
})();
