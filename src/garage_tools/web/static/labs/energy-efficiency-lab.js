// Energy Efficiency Lab: heat loss through the garage door and what a better-insulated door saves.
// Conduction only: Q = A x dT / R (BTU/h, with A in sq ft, dT in deg F, R in ft2.F.h/BTU); a season is
// A x HDD x 24 / R. R-values are the section 4.2 figures of domain-facts.md. They describe the panel core,
// so the results are a best case for the installed door (its U-factor also counts joints, edges and leaks).
// The garage temperature sets the cold-day rate only: degree days are counted from 65 F, so the season's
// figures are for a garage heated to 65 F, and the page says so (recounting them from another base needs
// the town's daily temperatures, which the lab does not have).
(() => {
  "use strict";
  const K = window.LabKit;

  const SIZES = [
    [8, 7],
    [9, 7],
    [10, 7],
    [16, 7],
    [18, 7],
    [9, 8],
    [16, 8],
  ].map(([w, h]) => ({ value: w * h, label: `${w} × ${h} ft (${w * h} sq ft)` }));

  // R ~0 for a bare steel skin would divide by zero; R-1 stands in for it and is flagged in the label.
  const DOORS = [
    { value: 1, label: "Uninsulated steel (R ≈ 0; counted as R-1)" },
    { value: 4, label: "Polystyrene, low end (R-4)" },
    { value: 6.5, label: "1-3/8 in. polystyrene (R-6.5)" },
    { value: 10, label: "Polystyrene, high end (R-10)" },
    { value: 12.9, label: "1-3/8 in. polyurethane (R-12.9)" },
    { value: 18.4, label: "2 in. polyurethane (R-18.4)" },
  ];

  // Energy per billing unit (BTU) and an example price and efficiency; the reader enters their own.
  const FUELS = [
    { value: "gas", label: "Natural gas", btu: 100000, unit: "therm", price: 1.5, efficiency: 90 },
    { value: "electric", label: "Electric resistance", btu: 3412, unit: "kWh", price: 0.17, efficiency: 100 },
    { value: "propane", label: "Propane", btu: 91500, unit: "gal", price: 2.5, efficiency: 90 },
    { value: "oil", label: "Heating oil", btu: 138500, unit: "gal", price: 3.75, efficiency: 85 },
  ];

  K.start(() => {
    const size = K.selectField({ label: "Door size", choices: SIZES, value: 112, onChange: update });
    const current = K.selectField({ label: "Current door", choices: DOORS, value: 1, wide: true, onChange: update });
    const upgrade = K.selectField({ label: "New door", choices: DOORS, value: 12.9, wide: true, onChange: update });
    const inside = K.rangeField({
      label: "Garage temperature",
      unit: "°F",
      min: 35,
      max: 75,
      step: 1,
      value: 60,
      onChange: update,
    });
    const outside = K.rangeField({
      label: "Outdoor temperature",
      unit: "°F",
      min: -30,
      max: 70,
      step: 1,
      value: 20,
      main: true,
      onChange: update,
      hint: "A cold day you want to check; with the garage temperature it sets the heat loss per hour.",
    });
    const hdd = K.rangeField({
      label: "Heating degree days",
      unit: "°F·days",
      wide: true,
      min: 0,
      max: 12000,
      step: 100,
      value: 5000,
      onChange: update,
      hint:
        "Counted from 65 °F, so the season's figures are for a garage heated to 65 °F, whatever the garage " +
        "temperature above; one kept cooler, or unheated, loses and saves less. Your weather service or utility " +
        "publishes the figure for your town (5,000 is only a starting value).",
    });
    const fuel = K.selectField({ label: "Heating fuel", choices: FUELS, value: "gas", onChange: fuelChanged });
    const price = K.numberField({
      label: "Price",
      unit: "$ per therm",
      min: 0,
      max: 100,
      step: 0.01,
      value: 1.5,
      onChange: update,
      hint: "An example price: enter yours from your bill.",
    });
    const efficiency = K.rangeField({
      label: "Heating efficiency",
      unit: "%",
      min: 50,
      max: 100,
      step: 1,
      value: 90,
      onChange: update,
    });
    const priceUnit = price.element.querySelector(".lk-unit");

    const { element: headline, cards } = K.headline({
      now: "Heat loss now, per hour",
      next: "With the new door, per hour",
      saving: "Saving a year, garage at 65 °F",
    });
    const { element: season, rows } = K.resultRows("Over a heating season, garage heated to 65 °F", {
      energy: "Heat through the door a year",
      cost: "Heating cost of that heat",
      cut: "Cut in door heat loss",
    });
    const lossSum = K.el("p", { class: "lk-hint" }); // the cold day's A x dT, under the formula
    const bars = ["Current door", "New door"].map((name) => {
      const bar = K.bar();
      const label = K.el("span", { class: "lk-hint" });
      return {
        bar,
        label,
        element: K.el(
          "div",
          { class: "lk-meter" },
          K.el("span", { class: "lk-bar-name", text: name }),
          bar.element,
          label,
        ),
      };
    });

    function fuelChanged() {
      const chosen = fuel.read();
      price.set(chosen.price);
      efficiency.set(chosen.efficiency);
      priceUnit.textContent = ` ($ per ${chosen.unit})`;
      update();
    }

    function update() {
      const area = size.read().value;
      const rNow = current.read().value;
      const rNew = upgrade.read().value;
      const dT = Math.max(0, inside.read() - outside.read());
      const qNow = (area * dT) / rNow;
      const qNew = (area * dT) / rNew;
      cards.now.textContent = `${K.fmt(qNow)} BTU/h`;
      cards.next.textContent = `${K.fmt(qNew)} BTU/h`;

      const chosen = fuel.read();
      const perUnit = chosen.btu * (efficiency.read() / 100); // useful heat bought per billing unit
      const yearly = (r) => (area * hdd.read() * 24) / r; // BTU a season
      const costNow = (yearly(rNow) / perUnit) * price.read();
      const costNew = (yearly(rNew) / perUnit) * price.read();
      cards.saving.textContent = K.money(costNow - costNew);

      lossSum.textContent =
        `${K.fmt(area)} sq ft × ${K.fmt(dT)} °F (garage ${K.fmt(inside.read())} °F, outside ` +
        `${K.fmt(outside.read())} °F) ÷ R` +
        (dT === 0 ? ": no heat flows out" : "");
      rows.energy.textContent =
        `${K.fmt(yearly(rNow) / 1e6, 2)} million BTU now, ` +
        `${K.fmt(yearly(rNew) / 1e6, 2)} million BTU with the new door`;
      rows.cost.textContent =
        `${K.money(costNow)} now, ${K.money(costNew)} new (${K.fmt(yearly(rNow) / perUnit)} ` +
        `vs ${K.fmt(yearly(rNew) / perUnit)} ${chosen.unit})`;
      rows.cut.textContent =
        rNew > rNow ? `${K.fmt((1 - rNow / rNew) * 100)}% less` : "none: the new door is not better insulated";

      const top = Math.max(qNow, qNew, 1);
      bars[0].bar.set(qNow / top);
      bars[1].bar.set(qNew / top);
      bars[0].label.textContent = `R-${K.fmt(rNow, 1)}: ${K.fmt(qNow)} BTU/h`;
      bars[1].label.textContent = `R-${K.fmt(rNew, 1)}: ${K.fmt(qNew)} BTU/h`;
    }

    update();
    return [
      headline,
      K.split(
        K.el(
          "div",
          {},
          K.group("The door", [size, current, upgrade]),
          K.group("A cold day", [outside, inside]),
          K.group("A heating season", [hdd]),
          K.group("Your heating", [fuel, price, efficiency]),
        ),
        K.stack(
          K.panel(
            K.el("h3", { text: "Heat loss, Q = A × ΔT ÷ R" }),
            lossSum,
            bars.map((b) => b.element),
          ),
          season,
          K.note(
            "Makers' R-values describe the panel core. The installed door's real performance (its U-factor, " +
              "tested to ANSI/DASMA 105) also counts the skins, joints, edges and air leaks, so the whole door " +
              "does worse than its core: treat these numbers as a best case. Worn seals can undo a good core.",
          ),
          K.note(
            "Dealer guidance: R-7 to R-12 or more for an attached garage (match or beat the wall next to it), " +
              "R-13 to R-15 or more in cold climates; a detached garage can do with less.",
          ),
        ),
      ),
    ];
  });
})();
