// The Science of Garage Door Springs: a torsion-spring calculator. Door weight, drum and height give the
// torque, the turns and the IPPT the springs must supply; wire size, inside diameter and length give what a
// given spring supplies; the cycle rating gives its life in years. Formulas: domain-facts.md 7.1, 5.2, 5.3.
// The defaults are the worked example of 7.2 (160 lb, 4 in. drum, 84 in., two springs, .234 x 2 x 30 in.).
(() => {
  "use strict";
  const K = window.LabKit;

  const IN_LB_TO_J = 0.112985; // 1 inch-pound of work in joules
  const E_RANGE = [28.5e6, 30e6]; // psi, oil-tempered or music wire (7.1)
  const EXTRA_TURNS = 0.75; // middle of the 0.5-1 extra turn that keeps the cables taut when open (7.1)
  const WIRES = [0.207, 0.218, 0.225, 0.234, 0.243, 0.25, 0.262]; // common residential wire (5.3)
  const INSIDE_DIAMETERS = [1.75, 2.0, 2.25, 2.5];
  const RATINGS = [
    { value: 7500, label: "7,500 (builder economy)" },
    { value: 10000, label: "10,000 (standard)" },
    { value: 15000, label: "15,000 (mid)" },
    { value: 20000, label: "20,000 (mid)" },
    { value: 25000, label: "25,000 (high cycle)" },
    { value: 30000, label: "30,000 (high cycle)" },
    { value: 50000, label: "50,000 (commercial)" },
  ];

  /** Spring rate in IPPT from geometry: k = E d^4 / (10.8 D N), D = ID + d, N = body length / d (7.1). */
  const springRate = (E, wire, inside, length) => (E * wire ** 4) / (10.8 * (inside + wire) * (length / wire));

  K.start(() => {
    const weight = K.rangeField({
      label: "Door weight",
      unit: "lb",
      min: 40,
      max: 600,
      step: 1,
      value: 160,
      main: true,
      onChange: update,
      hint: "A 16x7 steel door weighs about 150-275 lb depending on insulation; a 16x7 wood door 300-600 lb.",
    });
    const drum = K.rangeField({
      label: "Cable drum diameter",
      unit: "in",
      min: 3,
      max: 8,
      step: 0.25,
      value: 4,
      onChange: update,
      hint: "Standard-lift 4 in. drum: radius 2 in., about 1 ft of lift per turn.",
    });
    const height = K.rangeField({
      label: "Door height",
      unit: "in",
      min: 60,
      max: 144,
      step: 1,
      value: 84,
      onChange: update,
    });
    const springs = K.selectField({
      label: "Number of springs",
      value: 2,
      onChange: update,
      choices: [
        { value: 1, label: "1 (light single doors)" },
        { value: 2, label: "2 (most double doors)" },
      ],
    });
    const wire = K.selectField({
      label: "Wire size",
      unit: "in",
      value: 0.234,
      onChange: update,
      choices: WIRES.map((w) => ({ value: w, label: w.toFixed(3).replace(/^0/, "") })),
      hint: "Measure 10 or 20 closed coils and divide by the count; paint colors are not reliable.",
    });
    const inside = K.selectField({
      label: "Inside diameter",
      unit: "in",
      value: 2,
      onChange: update,
      choices: INSIDE_DIAMETERS.map((d) => ({ value: d, label: d.toFixed(2) })),
    });
    const length = K.rangeField({
      label: "Spring body length",
      unit: "in",
      min: 10,
      max: 60,
      step: 0.5,
      value: 30,
      onChange: update,
    });
    const rating = K.selectField({
      label: "Cycle rating",
      unit: "cycles",
      value: 10000,
      choices: RATINGS,
      onChange: update,
    });
    const perDay = K.cyclesPerDayField({ onChange: update });

    const { element: headline, cards } = K.headline({
      ippt: "IPPT per spring",
      turns: "Turns of wind",
      energy: "Stored energy, closed",
      life: "Spring life",
    });
    const { element: needs, rows } = K.resultRows("What the door needs", {
      torque: "Torque, door closed",
      turns: "Turns",
      ippt: "IPPT needed",
      energy: "Energy stored",
      work: "Work to lift the door",
    });
    const { element: gives, rows: srows } = K.resultRows("What this spring gives", {
      rate: "Rate per spring",
      lifts: "The set balances",
      balance: "Balance",
      length: "Length to balance",
      growth: "Growth when wound",
      life: "Life at this use",
    });
    const meter = K.bar("lk-balance");
    const meterLabel = K.el("p", { class: "lk-hint" });
    const formula = K.el("p", { class: "lk-formula" });

    function update() {
      const W = weight.read();
      const D = drum.read();
      const r = D / 2;
      const h = height.read();
      const n = springs.read().value;
      const torque = W * r;
      const geometric = h / (Math.PI * D);
      const turns = Math.round((geometric + EXTRA_TURNS) * 4) / 4; // springs are wound in quarter turns
      const ipptTotal = torque / turns;
      const energy = Math.PI * ipptTotal * turns ** 2; // U = pi x IPPT x N^2, in-lb
      const liftWork = (W * h) / 2 / 12; // center of mass rises half the height, ft-lb

      rows.torque.textContent = `${K.fmt(torque)} in-lb (${K.fmt(W)} lb × ${K.fmt(r, 2)} in radius)`;
      rows.turns.textContent =
        `height ÷ drum circumference = ${K.fmt(geometric, 2)}, plus about ${K.fmt(EXTRA_TURNS, 2)} extra, ` +
        `to the nearest quarter-turn: ${K.fmt(turns, 2)} (${K.fmt(turns * 4)} quarter-turns)`;
      rows.ippt.textContent = `${K.fmt(ipptTotal / n, 2)} IPPT per spring, ${K.fmt(ipptTotal, 2)} in total`;
      cards.ippt.textContent = K.fmt(ipptTotal / n, 2);
      cards.turns.textContent = K.fmt(turns, 2);
      cards.energy.textContent = `${K.fmt(energy / 12)} ft-lb`;
      const joules = energy * IN_LB_TO_J;
      rows.energy.textContent = `${K.fmt(energy)} in-lb = ${K.fmt(energy / 12)} ft-lb = ${K.fmt(joules)} J`;
      rows.work.textContent = `about ${K.fmt(liftWork)} ft-lb (center of mass rises ${K.fmt(h / 2 / 12, 2)} ft)`;
      formula.textContent =
        `IPPT = W × r ÷ N = ${K.fmt(W)} × ${K.fmt(r, 2)} ÷ ${K.fmt(turns, 2)} = ${K.fmt(ipptTotal, 2)}; ` +
        `U = π × IPPT × N² = ${K.fmt(energy)} in-lb.`;

      const d = wire.read().value;
      const id = inside.read().value;
      const L = length.read();
      const rates = E_RANGE.map((E) => springRate(E, d, id, L));
      const lifts = rates.map((k) => (k * n * turns) / r); // W = IPPT_total x N / r
      const midLift = (lifts[0] + lifts[1]) / 2;
      const needed = ipptTotal / n;
      srows.rate.textContent = `${K.fmt(rates[0], 1)}–${K.fmt(rates[1], 1)} (${K.fmt(L / d)} active coils)`;
      srows.lifts.textContent = `${K.fmt(lifts[0])}–${K.fmt(lifts[1])} lb at ${K.fmt(turns, 2)} turns`;
      const off = W - midLift;
      srows.balance.textContent =
        Math.abs(off) <= 15
          ? "Close to balanced: a balanced door takes about 8–15 lb to lift by hand."
          : off > 0
            ? `Too weak: the door would feel about ${K.fmt(off)} lb heavy.`
            : `Too strong: the springs lift about ${K.fmt(-off)} lb more than the door weighs.`;
      const lengths = rates.map((rate) => K.fmt((L * rate) / needed, 1)); // rate scales as 1 / length
      srows.length.textContent = `${lengths[0]}–${lengths[1]} in with this wire and ID`;
      srows.growth.textContent = `${K.fmt(turns * d, 2)} in (turns × wire size)`;
      const years = rating.read().value / (perDay.read() * 365);
      srows.life.textContent =
        `${K.fmt(rating.read().value)} cycles ÷ (${K.fmt(perDay.read())} a day × 365) = ${K.fmt(years, 1)} years` +
        (years > 20 ? "; don't count on more than about 20 in practice" : "");
      cards.life.textContent = `${K.fmt(years, 1)} years`;

      meter.set(midLift / (2 * W));
      meterLabel.textContent =
        "Spring lift (bar) against door weight (middle line): " + `${K.fmt(midLift)} lb vs ${K.fmt(W)} lb.`;
    }

    const nodes = [
      headline,
      K.split(
        K.el(
          "div",
          {},
          K.group("The door", [weight, drum, height]),
          K.group("The springs", [springs, wire, inside, length]),
          K.group("Use", [rating, perDay]),
        ),
        K.stack(
          needs,
          formula,
          gives,
          K.el("div", { class: "lk-meter" }, meter.element, meterLabel),
          K.note(
            "A wound spring stores hundreds of foot-pounds. Winding, unwinding or adjusting torsion " +
              "springs is a job for a trained technician, never a homeowner.",
            { warn: true },
          ),
        ),
      ),
    ];
    update();
    return nodes;
  });
})();
