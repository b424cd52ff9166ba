// Garage Door Anatomy: a labelled drawing of a sectional door seen from inside the garage. Numbered
// hotspots are real <button>s laid over the drawing, so Tab, Enter and Space work, and the Previous and
// Next buttons walk through the parts in order. Part names and facts: domain facts, sections 5-7.
// Built with DOM APIs only (the page's CSP allows no inline script or handlers).
(() => {
  "use strict";

  const root = document.getElementById("lab-interactive");
  if (!root) return;

  const { el, svg } = window.LabKit; // the shared DOM builders (lab-kit.js loads first)

  const WIDTH = 640;
  const HEIGHT = 400;

  // Each part: its hotspot (in drawing units), what it is, and one thing worth knowing about it.
  const PARTS = [
    {
      id: "sections",
      x: 460,
      y: 280,
      name: "Sections (panels)",
      role: "The door itself: hinged sections that fold around the curve of the track. Steel doors come as a single skin, steel with a foam and vinyl back, or a steel-foam-steel sandwich.",
      note: "A 16x7 steel door weighs about 150 to 275 lb, and the springs must balance every pound.",
    },
    {
      id: "strut",
      x: 190,
      y: 142,
      name: "Strut",
      role: "A steel reinforcement across the top section, where the opener's arm pulls, so the section does not bow.",
      note: "A bowed top section means the strut or the opener bracket needs attention.",
    },
    {
      id: "hinges",
      x: 232,
      y: 246,
      name: "Hinges",
      role: "Join the sections and let them fold around the track's curve. They are numbered from #1 at the bottom upward; the end hinges carry the roller stems at offsets that follow the curve.",
      note: "Replace cracked hinges or ones with stretched holes; a drop of oil on the pivots keeps them quiet.",
    },
    {
      id: "rollers",
      x: 538,
      y: 184,
      name: "Rollers",
      role: "Wheels on stems that ride in the tracks: plastic without bearings, steel with 7 or 10 balls, or nylon with sealed bearings.",
      note: "Flat-spotted or cracked rollers grind. Lubricate their bearings, never the track.",
    },
    {
      id: "tracks",
      x: 102,
      y: 280,
      name: "Tracks",
      role: "A vertical track on each side of the opening, a curve (the radius) at the top, then horizontal track running back into the garage.",
      note: "Tracks must be plumb, parallel and tight to the wall. A bent track or a door off its track is a job for a technician.",
    },
    {
      id: "shaft",
      x: 160,
      y: 80,
      name: "Torsion shaft",
      role: "The steel tube above the door that carries the springs and the cable drums and turns as the door moves.",
      note: "When a torsion spring breaks, the shaft keeps the pieces contained.",
    },
    {
      id: "springs",
      x: 262,
      y: 80,
      name: "Torsion springs",
      role: "Wound tight when the door is closed, they unwind to lift it, so a heavy door feels like 8 to 15 lb. A technician winds each spring at its winding cone; the other end is fixed to the center plate.",
      note: "A red winding cone marks a right-wound spring (left of the center plate, seen from inside), a black one a left-wound spring. Never touch them: a wound pair stores hundreds of foot-pounds.",
    },
    {
      id: "center",
      x: 306,
      y: 108,
      name: "Center bearing plate",
      role: "The bracket in the middle of the header that holds the springs' fixed cones and supports the shaft.",
      note: "It must be anchored into solid framing; a loose anchor is a repair for a technician.",
    },
    {
      id: "endplates",
      x: 570,
      y: 112,
      name: "End bearing plates",
      role: "Brackets at each end of the shaft, with the bearings the shaft turns in.",
      note: "The bearings should spin freely; wobble or noise means wear.",
    },
    {
      id: "drums",
      x: 86,
      y: 80,
      name: "Cable drums",
      role: "Grooved drums on the shaft's ends. The lift cables wind onto them as the door rises; a standard 4 in. drum takes up about a foot of cable per turn.",
      note: "Set screws must be tight and the cable must wrap evenly in the grooves.",
    },
    {
      id: "cables",
      x: 111,
      y: 220,
      name: "Lift cables",
      role: "Steel cables, about 1/8 in. thick on homes, from the drums down to the bottom brackets. With the door closed they carry its whole weight.",
      note: "Any broken strand means replacement. A door hanging crooked often has a broken cable: stop using it.",
    },
    {
      id: "brackets",
      x: 134,
      y: 358,
      name: "Bottom brackets",
      role: "The brackets at the bottom corners of the door where the lift cables hook on.",
      note: "They are under full spring tension, so never loosen them (look for the tension warning label).",
    },
    {
      id: "seal",
      x: 330,
      y: 376,
      name: "Bottom seal",
      role: "A rubber or vinyl strip (astragal) in a retainer along the bottom edge that closes the gap to the floor.",
      note: "Daylight under the door means a worn seal. Sliding in a new one is a homeowner job.",
    },
    {
      id: "opener",
      x: 370,
      y: 26,
      name: "Opener powerhead",
      role: "The motor unit hanging from the ceiling. It drives the trolley by chain, belt or screw and holds the light and the radio receiver.",
      note: "Openers last about 10 years on average; belt and direct-drive units often reach 15 to 20.",
    },
    {
      id: "rail",
      x: 344,
      y: 66,
      name: "Rail, trolley and door arm",
      role: "The trolley runs along the rail, and the door arm links it to a bracket on the top section.",
      note: "A sagging chain or a loose hanger shows up here; chain and screw rails need light lubrication.",
    },
    {
      id: "release",
      x: 366,
      y: 166,
      name: "Emergency release",
      role: "A red handle on a cord that unlatches the trolley so the door can be moved by hand, for example in a power cut.",
      note: "It must be red and no higher than 6 ft. Pull it with the door closed when you can: a door with a broken spring can drop fast.",
    },
    {
      id: "eyes",
      x: 590,
      y: 352,
      name: "Photo-eyes",
      role: "A sender and a receiver facing each other across the opening, no higher than 6 in. (15 cm). Breaking the beam makes a closing door reverse.",
      note: "Required on US openers since 1993. Keep direct sun off the receiver and test them every month.",
    },
    {
      id: "wallcontrol",
      x: 70,
      y: 178,
      name: "Wall control",
      role: "The button inside the garage that opens and closes the door.",
      note: "Mount it at least 5 ft above the floor, in sight of the door, away from moving parts and out of children's reach.",
    },
  ];

  // ---- The drawing; each part is a group that can be highlighted. ----
  const groups = {};
  const part = (id, ...shapes) => {
    const group = svg("g", { class: "lab-part", "data-part": id }, ...shapes);
    group.addEventListener("click", () => select(PARTS.findIndex((item) => item.id === id)));
    groups[id] = group;
    return group;
  };
  const steel = { fill: "#c9d0da", stroke: "#5b6575" };
  const rect = (x, y, width, height, style = steel, extra = {}) =>
    svg("rect", { class: "shape", x, y, width, height, ...style, ...extra });
  const coil = (x0, x1) => {
    const d = [];
    for (let x = x0; x <= x1; x += 4.5) d.push(`M${x} 68 l3 24`);
    return svg("path", { class: "line", d: d.join(" "), stroke: "#c2410c", "stroke-width": 3, fill: "none" });
  };
  const sectionYs = [122, 184, 246, 308];

  const drawing = svg(
    "svg",
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "lab-figure", "aria-hidden": "true", focusable: "false" },
    rect(0, 0, WIDTH, HEIGHT, { fill: "#fbfcfd", stroke: "none" }),
    rect(0, 370, WIDTH, 30, { fill: "#d6dbe3", stroke: "none" }),
    rect(0, 112, 96, 258, { fill: "#eef1f5", stroke: "none" }),
    rect(544, 112, 96, 258, { fill: "#eef1f5", stroke: "none" }),
    part(
      "sections",
      ...sectionYs.map((y) => rect(114, y, 412, 62, { fill: "#e5e9ef", stroke: "#8a96a8" })),
      ...sectionYs.map((y) => rect(130, y + 12, 380, 38, { fill: "none", stroke: "#cdd4de" })),
    ),
    part("strut", rect(122, 138, 396, 8, { fill: "#9aa5b4", stroke: "#5b6575" })),
    part(
      "hinges",
      ...[184, 246, 308].flatMap((y) =>
        [200, 320, 440, 122, 510].map((x) => rect(x - 7, y - 5, 14, 10, { fill: "#8a96a8", stroke: "#1d2430" })),
      ),
    ),
    part("tracks", rect(96, 112, 12, 258), rect(532, 112, 12, 258)),
    part(
      "rollers",
      ...[130, 184, 246, 308, 362].flatMap((y) => [
        svg("circle", { class: "shape", cx: 102, cy: y, r: 5, fill: "#5b6575", stroke: "#1d2430" }),
        svg("circle", { class: "shape", cx: 538, cy: y, r: 5, fill: "#5b6575", stroke: "#1d2430" }),
      ]),
    ),
    part("shaft", rect(60, 77, 520, 6, { fill: "#8a96a8", stroke: "#5b6575" })),
    part(
      "endplates",
      rect(58, 60, 10, 52, { fill: "#9aa5b4", stroke: "#5b6575" }),
      rect(572, 60, 10, 52, { fill: "#9aa5b4", stroke: "#5b6575" }),
    ),
    part(
      "drums",
      svg("circle", { class: "shape", cx: 86, cy: 80, r: 15, fill: "#d6dbe3", stroke: "#5b6575", "stroke-width": 2 }),
      svg("circle", { class: "shape", cx: 554, cy: 80, r: 15, fill: "#d6dbe3", stroke: "#5b6575", "stroke-width": 2 }),
    ),
    part(
      "springs",
      coil(214, 296),
      coil(334, 416),
      rect(206, 66, 8, 28, { fill: "#b91c1c", stroke: "#7f1d1d" }),
      rect(418, 66, 8, 28, { fill: "#1d2430", stroke: "#1d2430" }),
    ),
    part("center", rect(300, 60, 40, 42, { fill: "#9aa5b4", stroke: "#1d2430" })),
    part(
      "cables",
      svg("path", {
        class: "line",
        d: "M100 92 L118 356 M540 92 L522 356",
        stroke: "#1d2430",
        "stroke-width": 2,
        fill: "none",
      }),
    ),
    part(
      "brackets",
      rect(114, 348, 16, 20, { fill: "#9aa5b4", stroke: "#1d2430" }),
      rect(510, 348, 16, 20, { fill: "#9aa5b4", stroke: "#1d2430" }),
    ),
    part("seal", rect(114, 366, 412, 6, { fill: "#1d2430", stroke: "#1d2430" })),
    part(
      "rail",
      rect(316, 44, 8, 80, { fill: "#b8c1ce", stroke: "#5b6575" }),
      rect(308, 104, 24, 12, { fill: "#8a96a8", stroke: "#1d2430" }),
      svg("path", { class: "line", d: "M320 116 q10 14 0 26", stroke: "#1d2430", "stroke-width": 3, fill: "none" }),
    ),
    part("opener", rect(280, 8, 80, 36, { fill: "#d6dbe3", stroke: "#5b6575" }, { rx: 5 })),
    part(
      "release",
      svg("path", { class: "line", d: "M326 112 L340 160", stroke: "#dc2626", "stroke-width": 1.5, fill: "none" }),
      rect(334, 160, 12, 18, { fill: "#dc2626", stroke: "#7f1d1d" }, { rx: 3 }),
    ),
    part(
      "eyes",
      svg("line", {
        class: "line",
        x1: 72,
        y1: 352,
        x2: 568,
        y2: 352,
        stroke: "#dc2626",
        "stroke-width": 1.5,
        "stroke-dasharray": "7 5",
      }),
      rect(58, 344, 16, 16, { fill: "#fde68a", stroke: "#92400e" }, { rx: 3 }),
      rect(566, 344, 16, 16, { fill: "#fde68a", stroke: "#92400e" }, { rx: 3 }),
    ),
    part(
      "wallcontrol",
      rect(30, 176, 20, 28, { fill: "#fff", stroke: "#5b6575" }, { rx: 3 }),
      svg("circle", { class: "shape", cx: 40, cy: 186, r: 5, fill: "#0b5cad", stroke: "#0b5cad" }),
    ),
  );

  // ---- Hotspots, the walk-through buttons and the description ----
  const hotspots = PARTS.map((item, index) => {
    const button = el(
      "button",
      { type: "button", class: "lab-hotspot", "aria-pressed": "false", "aria-label": `${index + 1}: ${item.name}` },
      String(index + 1),
    );
    button.style.left = `${(item.x / WIDTH) * 100}%`;
    button.style.top = `${(item.y / HEIGHT) * 100}%`;
    button.addEventListener("click", () => select(index));
    return button;
  });
  const figure = el("div", { class: "lab-hotspots gda-figure" }, drawing, ...hotspots);

  const previous = el("button", { type: "button", class: "secondary" }, "Previous part");
  const next = el("button", { type: "button", "data-lab-input": "" }, "Next part");
  const title = el("h3");
  const role = el("p");
  const note = el("p", { class: "lab-note" });
  const card = el("div", { class: "lab-panel", "data-lab-output": "", "aria-live": "polite" }, title, role, note);
  const list = el("ol", { class: "gda-list", "aria-label": "All parts" });
  PARTS.forEach((item, index) => {
    const button = el("button", { type: "button", class: "secondary" }, `${index + 1}. ${item.name}`);
    button.addEventListener("click", () => select(index));
    list.append(el("li", {}, button));
  });

  root.append(
    el(
      "div",
      { class: "lab-split" },
      el(
        "div",
        {},
        figure,
        el(
          "p",
          { class: "lab-note" },
          "Seen from inside the garage. Press a number, or walk through the parts in order.",
        ),
      ),
      el("div", {}, el("div", { class: "lab-buttons" }, previous, next), card),
    ),
    list,
  );

  let current = 0;
  function select(index) {
    current = (index + PARTS.length) % PARTS.length;
    const item = PARTS[current];
    title.textContent = `${current + 1}. ${item.name}`;
    role.textContent = item.role;
    note.textContent = item.note;
    hotspots.forEach((button, i) => button.setAttribute("aria-pressed", String(i === current)));
    for (const [id, group] of Object.entries(groups)) group.classList.toggle("active", id === item.id);
  }

  previous.addEventListener("click", () => select(current - 1));
  next.addEventListener("click", () => select(current + 1));
  select(PARTS.findIndex((item) => item.id === "springs"));
})();
