// The Science of Garage Doors: an overview explorer. Pick a system of the door (from the list or by
// clicking the drawing) to see what it does, the forces it deals with, what wears out and who should
// work on it; the use slider turns spring ratings into years. Figures: domain facts, sections 1-7.
// Plain DOM and SVG built with createElement (the page's CSP allows no inline script or handlers).
(() => {
  "use strict";

  const root = document.getElementById("lab-interactive");
  if (!root) return;

  const { el, svg } = window.LabKit; // the shared DOM builders (lab-kit.js loads first)
  const years = (cycles, perDay) => (cycles / (perDay * 365)).toFixed(1);

  // Each system: what it does, the forces involved, what wears out, who works on it. `load` and
  // `wear` may be functions of the cycles per day chosen on the slider.
  const SYSTEMS = [
    {
      id: "springs",
      name: "Springs (the counterbalance)",
      role:
        "Torsion springs on the shaft above the door twist as the door closes and unwind to lift it, so a " +
        "door of 150 lb or more feels like 8 to 15 lb. Older and lighter doors use extension springs along " +
        "the tracks, which stretch about half the door height and need a safety cable through each spring.",
      load:
        "A 160 lb door on standard 4 in. drums needs 160 × 2 = 320 inch-pounds of torque, about 7.5 turns " +
        "of wind, and the springs then hold about 630 ft-lb of energy with the door closed.",
      wear: (perDay) =>
        `Springs are rated in cycles (one open plus one close). At ${perDay} a day, a standard ` +
        `10,000-cycle spring lasts about ${years(10000, perDay)} years and a 25,000-cycle high-cycle ` +
        `spring about ${years(25000, perDay)} years. Cold mornings finish off springs that are already fatigued.`,
      who: "A technician, always: a wound spring stores enough energy to injure. Replace both springs together.",
    },
    {
      id: "cables",
      name: "Lift cables and drums",
      role:
        "Steel cables (about 1/8 in. thick on homes) run from the bottom brackets up to the drums at the ends " +
        "of the spring shaft. A standard 4 in. drum winds about a foot of cable per turn.",
      load:
        "With the door closed the two cables carry its full weight between them; the bottom brackets they " +
        "hook onto are under the same tension.",
      wear: () =>
        "Look for frayed strands, kinks, rust, and cable that sits outside the drum grooves. A broken cable " +
        "leaves the door hanging crooked: stop using it.",
      who: "A technician: cables, drums and bottom brackets are all under spring tension.",
    },
    {
      id: "tracks",
      name: "Tracks, rollers and hinges",
      role:
        "Rollers carry the door up the vertical tracks, around the curve and along the horizontal tracks. " +
        "Hinges, numbered from #1 at the bottom upward, let the sections bend around the curve.",
      load:
        "Closed, the door hangs on its cables; open, the horizontal tracks hold most of its weight, so they " +
        "must be plumb, parallel and fastened tight to the wall and ceiling.",
      wear: (perDay) =>
        "Builder-grade plastic rollers without bearings wear flat and grind; bearing rollers (steel 7- or " +
        `10-ball, or sealed nylon) are the upgrade. At ${perDay} cycles a day every roller turns through ` +
        `${(perDay * 365).toLocaleString("en-US")} trips a year.`,
      who:
        "You can lubricate hinges, rollers and bearings (not with WD-40, and never grease the tracks). " +
        "A bent track or a door off its track is a job for a technician.",
    },
    {
      id: "sections",
      name: "Door sections (panels)",
      role:
        "Hinged sections make the door (four on a typical 16x7). A strut stiffens the top section, where the opener pulls. " +
        "Steel doors come as one skin, steel with a foam and vinyl back, or steel-foam-steel sandwiches.",
      load:
        "A 16x7 steel door weighs about 150 to 275 lb, a wood one 300 to 600 lb; insulation adds 10 to 20 %. " +
        "Every pound of it is what the springs must balance.",
      wear: () =>
        "Check for cracks, dents that bend the structure, delamination, rot or rust where the finish is broken. " +
        "Panels for older models may no longer be made.",
      who: "Cleaning and touch-up paint: you. A damaged section: a technician (sometimes a new door).",
    },
    {
      id: "opener",
      name: "Opener (powerhead, rail, trolley)",
      role:
        "The motor drives a trolley along the rail by chain, belt or screw, and the door arm pulls the top " +
        "section. The opener steers a balanced door; the springs do the lifting.",
      load:
        "A balanced door takes about 8 to 15 lb to lift. When a spring breaks, the opener meets the full " +
        "weight and usually stops or reverses after about 6 inches.",
      wear: (perDay) =>
        `Openers are judged in years rather than cycles: about 10 years on average (10 to 15 is common, belt ` +
        `and direct-drive units often 15 to 20). At ${perDay} cycles a day it runs ` +
        `${(perDay * 365).toLocaleString("en-US")} cycles a year.`,
      who:
        "Remote batteries and re-latching the trolley (door closed): you. Circuit boards, gears, force and " +
        "travel limits: a technician.",
    },
    {
      id: "safety",
      name: "Safety systems (photo-eyes and auto-reverse)",
      role:
        "Two photo-eyes shine a beam across the opening no higher than 6 in. (15 cm) above the floor. If " +
        "anything breaks the beam while the door closes, the door reverses. It also reverses when it touches something.",
      load:
        "US openers have had to reverse on contact since January 1991, and to carry a second sensor, in " +
        "practice photo-eyes, since January 1993 (UL 325, 16 CFR 1211).",
      wear: () =>
        "Test every month: lay a 2x4 flat (1½ in., 3.8 cm) in the door's path. The closing door must reverse " +
        "when it touches it. Keep direct sun off the receiving eye.",
      who: "Cleaning and aiming the eyes: you. A door that fails the test: unplug the opener and call a technician.",
    },
    {
      id: "seals",
      name: "Weather seals and insulation",
      role:
        "The bottom seal (astragal) and the stop seal around the frame keep out drafts, water and pests; " +
        "insulation between the steel skins slows heat flow through the panels.",
      load:
        "Door R-values run from about 0 for a single steel skin to 18.4 for 2 in. of polyurethane. The installed " +
        "door's U-factor also counts joints, edges and air leaks, which is why seals matter.",
      wear: () => "Daylight under the door or water on the floor means a worn or cracked bottom seal.",
      who: "You: a new bottom seal slides into the retainer (match its T, bead or bulb profile).",
    },
  ];

  // ---- The drawing: the door seen from inside the garage. Each system is one clickable group. ----
  const groups = {};
  const part = (id, ...shapes) => {
    const group = svg("g", { class: "lab-part", "data-system": id }, ...shapes);
    group.addEventListener("click", () => choose(id));
    groups[id] = group;
    return group;
  };
  const panel = (y) =>
    svg("rect", { class: "shape", x: 62, y, width: 276, height: 47, fill: "#e5e9ef", stroke: "#8a96a8" });
  const coil = (x0, x1) => {
    const path = [];
    for (let x = x0; x <= x1; x += 4) path.push(`M${x} 47 l2 16`);
    return svg("path", { class: "line", d: path.join(" "), stroke: "#c2410c", "stroke-width": 2.5, fill: "none" });
  };
  const drawing = svg(
    "svg",
    {
      viewBox: "0 0 400 300",
      class: "lab-figure",
      role: "img",
      "aria-label": "A garage door seen from inside the garage, with its systems",
    },
    svg("rect", { x: 0, y: 0, width: 400, height: 300, fill: "#fbfcfd" }),
    svg("rect", { x: 0, y: 280, width: 400, height: 20, fill: "#d6dbe3" }),
    svg("rect", { x: 0, y: 0, width: 60, height: 280, fill: "#eef1f5" }),
    svg("rect", { x: 340, y: 0, width: 60, height: 280, fill: "#eef1f5" }),
    part(
      "sections",
      panel(82),
      panel(129),
      panel(176),
      panel(223),
      svg("rect", { class: "shape", x: 66, y: 88, width: 268, height: 6, fill: "#b8c1ce", stroke: "#8a96a8" }),
    ),
    part(
      "tracks",
      svg("rect", { class: "shape", x: 52, y: 78, width: 8, height: 202, fill: "#c9d0da", stroke: "#8a96a8" }),
      svg("rect", { class: "shape", x: 340, y: 78, width: 8, height: 202, fill: "#c9d0da", stroke: "#8a96a8" }),
      ...[106, 153, 200, 247].flatMap((y) => [
        svg("circle", { class: "shape", cx: 56, cy: y, r: 4.5, fill: "#5b6575", stroke: "#1d2430" }),
        svg("circle", { class: "shape", cx: 344, cy: y, r: 4.5, fill: "#5b6575", stroke: "#1d2430" }),
      ]),
      ...[129, 176, 223].flatMap((y) => [
        svg("rect", { class: "shape", x: 120, y: y - 4, width: 14, height: 8, fill: "#9aa5b4", stroke: "#5b6575" }),
        svg("rect", { class: "shape", x: 266, y: y - 4, width: 14, height: 8, fill: "#9aa5b4", stroke: "#5b6575" }),
      ]),
    ),
    part(
      "springs",
      svg("rect", { class: "shape", x: 36, y: 52, width: 328, height: 6, fill: "#8a96a8", stroke: "#5b6575" }),
      coil(130, 194),
      coil(206, 270),
      svg("rect", { class: "shape", x: 195, y: 42, width: 10, height: 26, fill: "#5b6575", stroke: "#1d2430" }),
    ),
    part(
      "cables",
      svg("circle", { class: "shape", cx: 44, cy: 55, r: 11, fill: "#d6dbe3", stroke: "#5b6575", "stroke-width": 2 }),
      svg("circle", { class: "shape", cx: 356, cy: 55, r: 11, fill: "#d6dbe3", stroke: "#5b6575", "stroke-width": 2 }),
      svg("path", {
        class: "line",
        d: "M55 57 L63 272 M345 57 L337 272",
        stroke: "#1d2430",
        "stroke-width": 1.6,
        fill: "none",
      }),
      svg("rect", { class: "shape", x: 62, y: 262, width: 10, height: 12, fill: "#9aa5b4", stroke: "#5b6575" }),
      svg("rect", { class: "shape", x: 328, y: 262, width: 10, height: 12, fill: "#9aa5b4", stroke: "#5b6575" }),
    ),
    part(
      "opener",
      svg("rect", { class: "shape", x: 170, y: 6, width: 60, height: 26, rx: 4, fill: "#d6dbe3", stroke: "#5b6575" }),
      svg("rect", { class: "shape", x: 197, y: 32, width: 6, height: 52, fill: "#9aa5b4", stroke: "#5b6575" }),
      svg("rect", { class: "shape", x: 188, y: 84, width: 24, height: 10, fill: "#9aa5b4", stroke: "#5b6575" }),
      svg("path", { class: "line", d: "M188 40 q-8 12 0 24", stroke: "#dc2626", "stroke-width": 2, fill: "none" }),
    ),
    part(
      "seals",
      svg("rect", { class: "shape", x: 62, y: 272, width: 276, height: 8, fill: "#1d2430", stroke: "#1d2430" }),
      svg("rect", { class: "shape", x: 60, y: 76, width: 280, height: 4, fill: "#5b6575", stroke: "#5b6575" }),
    ),
    part(
      "safety",
      svg("line", {
        class: "line",
        x1: 30,
        y1: 266,
        x2: 370,
        y2: 266,
        stroke: "#dc2626",
        "stroke-width": 1.5,
        "stroke-dasharray": "6 4",
      }),
      svg("rect", { class: "shape", x: 22, y: 259, width: 14, height: 14, rx: 2, fill: "#fde68a", stroke: "#92400e" }),
      svg("rect", { class: "shape", x: 364, y: 259, width: 14, height: 14, rx: 2, fill: "#fde68a", stroke: "#92400e" }),
      svg("rect", { class: "shape", x: 18, y: 150, width: 14, height: 20, rx: 2, fill: "#fff", stroke: "#5b6575" }),
    ),
  );

  // ---- Controls and the explanation card ----
  const select = el("select", { id: "sgd-system", "data-lab-input": "" });
  for (const system of SYSTEMS) select.append(el("option", { value: system.id }, system.name));
  const usage = el("input", { id: "sgd-usage", type: "range", min: "1", max: "10", step: "1", value: "4" });
  const usageValue = el("output", { for: "sgd-usage" });

  const title = el("h3");
  const fields = {};
  const list = el("dl");
  for (const [key, label] of [
    ["role", "What it does"],
    ["load", "Forces and numbers"],
    ["wear", "What wears out"],
    ["who", "Who works on it"],
  ]) {
    fields[key] = el("dd");
    list.append(el("dt", {}, label), fields[key]);
  }
  const card = el("div", { class: "lab-panel", "data-lab-output": "", "aria-live": "polite" }, title, list);

  root.append(
    el(
      "div",
      { class: "lab-controls" },
      el("div", { class: "lab-field" }, el("label", { for: "sgd-system" }, "System"), select),
      el(
        "div",
        { class: "lab-field" },
        el("label", { for: "sgd-usage" }, "How often the door opens and closes"),
        usage,
        usageValue,
      ),
    ),
    el(
      "div",
      { class: "lab-split" },
      el(
        "div",
        {},
        drawing,
        el("p", { class: "lab-note" }, "Click a part of the door, or choose a system from the list."),
      ),
      card,
    ),
  );

  function show() {
    const system = SYSTEMS.find((item) => item.id === select.value) || SYSTEMS[0];
    const perDay = Number(usage.value);
    usageValue.textContent = `${perDay} cycle${perDay === 1 ? "" : "s"} a day (one cycle = open + close)`;
    title.textContent = system.name;
    fields.role.textContent = system.role;
    fields.load.textContent = system.load;
    fields.wear.textContent = system.wear(perDay);
    fields.who.textContent = system.who;
    for (const [id, group] of Object.entries(groups)) group.classList.toggle("active", id === system.id);
  }

  function choose(id) {
    select.value = id;
    show();
  }

  select.addEventListener("change", show);
  usage.addEventListener("input", show);
  show();
})();
