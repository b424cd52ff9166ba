// Garage Door ROI: what a replacement door adds at resale, using the "Cost vs Value" report figures
// (Remodeling magazine) from domain-facts.md section 7.5: value added = cost x recouped % / 100; net cost =
// cost - value added. The report's values are realtors' estimates of resale value, not measured sale premiums.
(() => {
  "use strict";
  const K = window.LabKit;
  const percent = (r) => (r.approx ? `about ${K.fmt(r.pct)}%` : `${K.fmt(r.pct, 1)}%`);

  // Report year, grade, percent recouped, and the report's own national job cost and resale value where published.
  const REPORTS = [
    { year: "2012-13", grade: "midrange", pct: 75.7 },
    { year: "2012-13", grade: "upscale", pct: 75.2 },
    { year: "2014", grade: "midrange", pct: 83.7, cost: 1534, resale: 1283 },
    { year: "2014", grade: "upscale", pct: 82.9, cost: 2800, resale: 2315 },
    { year: "2016", grade: "midrange", pct: 91.5, cost: 1652, resale: 1512 },
    { year: "2016", grade: "upscale", pct: 90.1, cost: 3140, resale: 2830 },
    {
      year: "2018",
      grade: "upscale",
      pct: 98.3,
      cost: 3470,
      resale: 3411,
      note: "the first time a garage door ranked first of all projects",
    },
    { year: "2019", grade: "", pct: 97.5 },
    { year: "2021", grade: "", pct: 93.8 },
    { year: "2022", grade: "", pct: 94, approx: true, note: "about 94%, from a dealer blog: low confidence" },
    {
      year: "2024",
      grade: "",
      pct: 193.9,
      cost: 4513,
      resale: 8751,
      note: "one source labels it the 2025 report: the year is uncertain",
    },
  ].map((r, index) => {
    const name = r.grade ? `${r.year} ${r.grade}` : r.year;
    return { value: index, report: r, name, label: `${name}: ${percent(r)}` };
  });
  // The lab opens on typical figures: a mid-priced installed door and the latest report whose percentage is in
  // line with the series (2021, 93.8%), not the 2024 outlier (193.9%), which stays one choice away.
  const TYPICAL_REPORT = REPORTS.findIndex((r) => r.report.year === "2021");
  const TYPICAL_COST = 2500;
  const SCALE_PCT = 200; // the chart's full width

  K.start(() => {
    const cost = K.rangeField({
      label: "Project cost",
      unit: "$",
      min: 500,
      max: 12000,
      step: 50,
      value: TYPICAL_COST,
      main: true,
      onChange: update,
      hint:
        "Installed 16x7 insulated steel doors usually run $1,800-$3,200; " +
        "$4,513 is the 2024 report's national job cost.",
    });
    const home = K.numberField({
      label: "Home value",
      unit: "$",
      min: 10000,
      max: 10000000,
      step: 1000,
      value: 400000,
      onChange: update,
      hint: "Your own estimate.",
    });
    const report = K.selectField({
      label: "Cost vs Value report",
      choices: REPORTS,
      value: TYPICAL_REPORT,
      wide: true,
      onChange: update,
      hint: "Percent of the job cost recouped at resale, national average.",
    });

    const { element: headline, cards } = K.headline({
      added: "Value added at resale",
      net: "Net cost after resale",
      pct: "Recouped",
    });
    const { element: numbers, rows } = K.resultRows("Your numbers", {
      formula: "Value added",
      home: "Home value afterwards (estimate)",
      share: "Project as a share of the home",
      source: "The report's own figures",
    });
    const chartRows = REPORTS.map((r) => {
      const bar = K.bar("lk-roi-bar");
      const row = K.el(
        "li",
        { class: "lk-roi-row" },
        K.el("span", { class: "lk-roi-name", text: r.name }),
        bar.element,
        K.el("span", {
          class: "lk-roi-pct",
          text: r.report.approx ? `≈${K.fmt(r.report.pct)}%` : `${K.fmt(r.report.pct, 1)}%`,
        }),
      );
      bar.set(r.report.pct / SCALE_PCT);
      return row;
    });

    function update() {
      const chosen = report.read().report;
      const price = cost.read();
      const added = (price * chosen.pct) / 100;
      const net = price - added;
      cards.added.textContent = K.money(added);
      cards.net.textContent = net >= 0 ? K.money(net) : `${K.money(-net)} gain`;
      cards.pct.textContent = percent(chosen);
      rows.formula.textContent = `${K.money(price)} × ${K.fmt(chosen.pct, 1)}% = ${K.money(added)}`;
      rows.home.textContent = K.money(home.read() + added);
      rows.share.textContent = `${K.fmt((price / home.read()) * 100, 2)}% of ${K.money(home.read())}`;
      rows.source.textContent =
        (chosen.cost ? `job cost ${K.money(chosen.cost)}, resale value ${K.money(chosen.resale)}` : "percentage only") +
        (chosen.note ? `; ${chosen.note}` : "");
      chartRows.forEach((row, index) => row.classList.toggle("lk-chosen", index === report.read().value));
    }

    update();
    return [
      headline,
      K.split(
        K.stack(K.group("Your project", [cost, home, report]), numbers),
        K.stack(
          K.el(
            "figure",
            { class: "lab-panel lk-roi-chart" },
            K.el("figcaption", {
              text: "Garage door replacement: percent of cost recouped, by report (bar ends at 200%; the line is 100%)",
            }),
            K.el("ol", { class: "lk-roi-list" }, chartRows),
          ),
          K.note(
            "Source: Remodeling magazine's Cost vs Value reports, as quoted by the press and dealers. The values " +
              "are realtors' estimates of resale value, not measured sale premiums, and local results vary. The " +
              "2016 project: a 16x7 four-section insulated steel door with windows, new heavy-duty track and a " +
              "lifetime warranty. A 2025 figure near 268% circulates but could not be verified.",
          ),
        ),
      ),
    ];
  });
})();
