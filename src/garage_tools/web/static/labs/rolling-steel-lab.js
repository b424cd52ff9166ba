// Rolling Steel Lab: how big the coil of a rolling (coiling) door gets, and the headroom it needs.
// The coil is modelled as a spiral: each wrap adds the same build t to the radius, so a curtain of length L on
// a barrel of diameter D0 coils to D = sqrt(D0^2 + 4 t L / pi) after n = (D - D0) / (2 t) wraps (the curtain's
// area seen end-on, L x t, fills the ring between barrel and coil). Facts: domain-facts.md section 7.4.
(() => {
  "use strict";
  const K = window.LabKit;
  const VIEW = { w: 320, h: 250, cx: 190, cy: 118, fit: 100 }; // SVG canvas; the coil+hood fits in +-fit px

  /** Coil diameter and wraps for curtain length L, barrel diameter d0, build per wrap t (all inches). */
  function coil(L, d0, t) {
    const diameter = Math.sqrt(d0 ** 2 + (4 * t * L) / Math.PI);
    return { diameter, wraps: (diameter - d0) / (2 * t) };
  }

  K.start(() => {
    const height = K.rangeField({
      label: "Door height",
      unit: "ft",
      min: 6,
      max: 24,
      step: 0.5,
      value: 10,
      main: true,
      onChange: update,
      hint: "The curtain coiled when the door is open is taken as the opening height.",
    });
    const barrel = K.rangeField({
      label: "Barrel diameter",
      unit: "in",
      min: 3,
      max: 12,
      step: 0.25,
      value: 3,
      onChange: update,
      hint: "The tube the curtain coils on; the counterbalance springs are inside it.",
    });
    const build = K.rangeField({
      label: "Coil build per wrap",
      unit: "in",
      min: 0.5,
      max: 4,
      step: 0.05,
      value: 2,
      onChange: update,
      hint:
        "How much the coil's radius grows each wrap: more than the slat's depth, because rigid, crowned, " +
        "interlocked slats lie as a polygon with gaps. At 2 in., 10 ft on a 3 in. barrel coils to about 18 in., the " +
        "low end of the 18-24 in. usually quoted.",
    });
    const allowance = K.rangeField({
      label: "Hood and bracket allowance",
      unit: "in",
      min: 0,
      max: 12,
      step: 0.5,
      value: 2,
      onChange: update,
      hint: "Take it from the door maker's chart; this lab only knows the coil.",
    });

    const { element: headline, cards } = K.headline({
      diameter: "Coil diameter",
      wraps: "Wraps on the barrel",
      headroom: "Headroom needed",
    });
    const tableBody = K.el("tbody");
    const table = K.el(
      "table",
      { class: "lk-table" },
      K.el("caption", { text: "Wrap by wrap" }),
      K.el(
        "thead",
        {},
        K.el(
          "tr",
          {},
          ["Wrap", "Diameter after it", "Curtain on the coil"].map((t) => K.el("th", { scope: "col", text: t })),
        ),
      ),
      tableBody,
    );

    const figure = K.figure(VIEW.w, VIEW.h, "Cross-section of the coil");
    const figureText = K.el("p", { class: "lk-hint" });

    function draw(d0, t, result, extra) {
      const outer = result.diameter / 2 + extra / 2; // hood half-size, inches
      const px = VIEW.fit / outer; // pixels per inch
      const { cx, cy } = VIEW;
      const r0 = (d0 / 2) * px;
      const points = [];
      const turnsAngle = result.wraps * 2 * Math.PI;
      // The spiral ends at angle 0 (the front), where the curtain leaves the coil and hangs down.
      for (let a = 0; a <= turnsAngle; a += 0.05) {
        const r = r0 + t * px * (a / (2 * Math.PI));
        const theta = a - turnsAngle;
        points.push(`${(cx + r * Math.cos(theta)).toFixed(1)},${(cy + r * Math.sin(theta)).toFixed(1)}`);
      }
      const rc = (result.diameter / 2) * px;
      const top = cy - outer * px;
      const bottom = cy + outer * px;
      figure.layer.replaceChildren(
        K.svg("rect", {
          class: "lk-hood",
          x: cx - outer * px,
          y: top,
          width: 2 * outer * px,
          height: 2 * outer * px,
          rx: 10,
        }),
        K.svg("polyline", { class: "lk-coil", points: points.join(" ") }),
        K.svg("line", { class: "lk-coil", x1: cx + rc, y1: cy, x2: cx + rc, y2: VIEW.h }),
        K.svg("circle", { class: "lk-barrel", cx, cy, r: r0 }),
        K.svg("line", { class: "lk-dim", x1: 40, y1: top, x2: 40, y2: bottom }),
        K.svg("line", { class: "lk-dim", x1: 32, y1: top, x2: cx - outer * px, y2: top }),
        K.svg("line", { class: "lk-dim", x1: 32, y1: bottom, x2: cx - outer * px, y2: bottom }),
        K.svg("text", { x: 46, y: cy - 4, text: "headroom" }),
        K.svg("text", { x: 46, y: cy + 12, text: `${K.fmt(result.diameter + extra, 1)} in` }),
        K.svg("text", { x: cx + rc - 6, y: VIEW.h - 8, "text-anchor": "end", text: "curtain" }),
      );
    }

    function update() {
      const L = height.read() * 12;
      const d0 = barrel.read();
      const t = build.read();
      const extra = allowance.read();
      const result = coil(L, d0, t);
      cards.diameter.textContent = `${K.fmt(result.diameter, 1)} in`;
      cards.wraps.textContent = K.fmt(result.wraps, 2);
      cards.headroom.textContent = `${K.fmt(result.diameter + extra, 1)} in`;
      figureText.textContent =
        `D = √(${K.fmt(d0, 2)}² + 4 × ${K.fmt(t, 2)} × ${K.fmt(L)} ÷ π) = ${K.fmt(result.diameter, 1)} in.; ` +
        `wraps = (D − barrel) ÷ (2 × build) = ${K.fmt(result.wraps, 2)}.`;

      const rows = [];
      let used = 0;
      for (let k = 1; k <= Math.ceil(result.wraps) && k <= 40; k += 1) {
        const last = k > result.wraps;
        // a full wrap lies at mid-radius d0/2 + (k - 1/2) t; the last one is partial
        const length = last ? L - used : Math.PI * (d0 + (2 * k - 1) * t);
        used += length;
        const diameter = last ? result.diameter : d0 + 2 * k * t;
        rows.push(
          K.el(
            "tr",
            {},
            K.el("td", { text: last ? `${k} (part)` : String(k) }),
            K.el("td", { text: `${K.fmt(diameter, 1)} in` }),
            K.el("td", { text: `${K.fmt(used / 12, 1)} of ${K.fmt(L / 12, 1)} ft` }),
          ),
        );
      }
      tableBody.replaceChildren(...rows);
      draw(d0, t, result, extra);
    }

    update();
    return [
      headline,
      K.split(
        K.stack(
          K.group("Door and barrel", [height, barrel, build, allowance]),
          K.note(
            "A 10 x 10 curtain can weigh over 200 lb. Fire-rated rolling doors need an acceptance test at " +
              "installation and an annual inspection and drop test by a qualified person (NFPA 80).",
          ),
        ),
        K.stack(K.panel(figure.element, figureText), table),
      ),
    ];
  });
})();
