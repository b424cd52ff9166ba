// Spring Fatigue and Cold Weather: life in years = rated cycles / (cycles per day x 365) (domain-facts.md
// 5.2), with a chart across usage, and the cold-weather effect of section 5.4. The reference gives no formula
// for how much cold shortens a spring's life, so the cold-weather part is qualitative on purpose.
(() => {
  "use strict";
  const K = window.LabKit;

  const RATINGS = [7500, 10000, 15000, 20000, 25000, 30000, 50000, 100000];
  const GRADE = {
    7500: "builder economy",
    10000: "standard residential",
    15000: "mid",
    20000: "mid",
    25000: "high cycle",
    30000: "high cycle",
    50000: "commercial",
    100000: "commercial",
  };
  const CHART = { w: 340, h: 190, left: 34, right: 10, top: 10, bottom: 30, maxDay: 20, maxYears: 40 };
  const PRACTICAL_CAP = 20; // years: dealer guidance, not a promise

  const lifeYears = (rating, perDay) => rating / (perDay * 365);

  K.start(() => {
    const perDay = K.cyclesPerDayField({
      main: true,
      onChange: update,
      hint: "About 4 a day (1,460 a year) is typical.",
    });
    const rating = K.selectField({
      label: "Spring cycle rating",
      unit: "cycles",
      value: 10000,
      wide: true,
      onChange: update,
      choices: RATINGS.map((r) => ({ value: r, label: `${K.fmt(r)}${GRADE[r] ? ` (${GRADE[r]})` : ""}` })),
    });
    const age = K.rangeField({
      label: "Spring age",
      unit: "years",
      min: 0,
      max: 30,
      step: 0.5,
      value: 5,
      onChange: update,
    });
    const conditions = {
      cold: K.checkField({ label: "Freezing mornings in winter", checked: true, onChange: update }),
      salt: K.checkField({ label: "Damp garage, salt air or road salt", onChange: update }),
      binding: K.checkField({ label: "Door feels stiff or binds when cold", onChange: update }),
      neglected: K.checkField({ label: "No inspection or lubrication in the last year", onChange: update }),
    };

    const { element: headline, cards } = K.headline({
      life: "Expected life",
      year: "Cycles a year",
      used: "Rating used so far",
    });
    const status = K.el("p", { class: "lab-result" });
    const reasons = K.el("ul", { class: "lk-list" });
    const table = K.el("p", { class: "lk-hint" });

    const chart = K.figure(CHART.w, CHART.h, "Spring life in years against cycles per day");
    const x = (day) => CHART.left + ((day - 1) / (CHART.maxDay - 1)) * (CHART.w - CHART.left - CHART.right);
    const y = (years) =>
      CHART.top + (1 - Math.min(years, CHART.maxYears) / CHART.maxYears) * (CHART.h - CHART.top - CHART.bottom);

    function drawChart(chosen, day) {
      const nodes = [];
      for (const years of [0, 10, 20, 30, 40]) {
        nodes.push(
          K.svg("line", {
            class: years === PRACTICAL_CAP ? "lk-cap" : "lk-grid",
            x1: CHART.left,
            x2: CHART.w - CHART.right,
            y1: y(years),
            y2: y(years),
          }),
        );
        nodes.push(K.svg("text", { x: CHART.left - 4, y: y(years) + 4, "text-anchor": "end", text: String(years) }));
      }
      for (const d of [1, 5, 10, 15, 20])
        nodes.push(K.svg("text", { x: x(d), y: CHART.h - 18, "text-anchor": "middle", text: String(d) }));
      nodes.push(
        K.svg("text", { x: CHART.w - CHART.right, y: CHART.h - 2, "text-anchor": "end", text: "cycles per day →" }),
      );
      nodes.push(K.svg("text", { x: CHART.left + 6, y: CHART.top + 4, text: "years" }));
      nodes.push(
        K.svg("text", {
          x: CHART.w - CHART.right,
          y: y(PRACTICAL_CAP) - 4,
          "text-anchor": "end",
          text: "about 20 yr: practical limit",
        }),
      );
      for (const r of RATINGS) {
        const points = [];
        for (let d = 1; d <= CHART.maxDay; d += 0.25) {
          if (lifeYears(r, d) <= CHART.maxYears) points.push(`${x(d).toFixed(1)},${y(lifeYears(r, d)).toFixed(1)}`);
        }
        nodes.push(
          K.svg("polyline", { class: r === chosen ? "lk-curve lk-chosen" : "lk-curve", points: points.join(" ") }),
        );
      }
      nodes.push(K.svg("circle", { class: "lk-dot", cx: x(day), cy: y(lifeYears(chosen, day)), r: 5 }));
      chart.layer.replaceChildren(...nodes);
    }

    function update() {
      const day = perDay.read();
      const chosen = rating.read().value;
      const years = lifeYears(chosen, day);
      const used = (age.read() * day * 365) / chosen;
      cards.life.textContent = `${K.fmt(years, 1)} years`;
      cards.year.textContent = K.fmt(day * 365);
      cards.used.textContent = `${K.fmt(used * 100)}%`;
      table.textContent =
        `${K.fmt(chosen)} cycles ÷ (${K.fmt(day)} × 365) = ${K.fmt(years, 1)} years. At 2 / 4 / 6 / 8 a day: ` +
        [2, 4, 6, 8].map((d) => K.fmt(lifeYears(chosen, d), 1)).join(" / ") +
        " years." +
        (years > PRACTICAL_CAP ? " Don't count on more than about 20 years whatever the rating." : "");

      const notes = ["Springs fail mainly from fatigue: tiny cracks grow a little with every cycle."];
      let verdict = "Within its rated cycles.";
      let tone = "ok";
      if (used >= 1) [verdict, tone] = ["Past its rated cycles: plan to replace both springs.", "bad"];
      else if (used >= 0.75)
        [verdict, tone] = ["Near the end of its rated cycles: worth planning a replacement.", "bad"];
      if (conditions.cold.read()) {
        notes.push(
          "Cold spring steel (high-carbon) is less tough, so an already fatigued spring is more likely to " +
            "snap, and breaks cluster on the first cycle of a cold morning.",
        );
        if (used >= 0.75) verdict += " Cold mornings make a break more likely.";
      }
      if (conditions.salt.read()) notes.push("Moisture and salt leave corrosion pits, and cracks start at pits.");
      if (conditions.binding.read())
        notes.push("Cold thickens lubricant and stiffens seals; a binding door adds load.");
      if (conditions.neglected.read())
        notes.push(
          "An annual inspection and balance check, and light lubrication of springs, hinges and bearings, help.",
        );
      if (conditions.cold.read() && day >= 6)
        notes.push(
          "For cold, heavy-use homes, higher-cycle springs (same lift, larger wire, longer spring) last longer.",
        );
      status.textContent = verdict;
      status.className = `lab-result ${tone}`;
      reasons.replaceChildren(...notes.map((text) => K.el("li", { text })));
      drawChart(chosen, day);
    }

    update();
    return [
      headline,
      K.split(
        K.stack(
          K.group("Use and rating", [perDay, rating, age]),
          K.group("Winter conditions", Object.values(conditions), "lk-checks"),
        ),
        K.stack(
          K.panel(chart.element, table),
          K.el(
            "div",
            { class: "lab-panel", role: "status", "aria-live": "polite" },
            K.el("h3", { text: "This spring in winter" }),
            status,
            reasons,
          ),
          K.note(
            "There is no formula here for how much cold shortens a spring's life, because no engineering " +
              "source gives one. The common claim that cold steel contracts and raises spring tension is not " +
              "backed by an engineering source: at most a minor effect.",
          ),
        ),
      ),
    ];
  });
})();
