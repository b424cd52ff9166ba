// Safety Systems Lab: close a door on something and watch which safety system stops it. The photo-eye
// beam (no higher than 6 in.) catches anything tall enough to cross it; below the beam only the contact
// reversal helps, which is why the monthly test uses a 1½ in. object such as a 2x4 laid flat.
// A badly adjusted opener fails that test. Facts: domain facts 6.1 (UL 325, 16 CFR 1211).
// SVG built with DOM APIs (the page's CSP allows no inline script or handlers).
(() => {
  "use strict";

  const root = document.getElementById("lab-interactive");
  if (!root) return;

  const { el, svg, set } = window.LabKit; // the shared DOM builders (lab-kit.js loads first)

  const HEIGHT = 84; // in.
  const BEAM = 6; // in. above the floor, the highest a photo-eye beam may sit
  const BOARD = 1.5; // in., a 2x4 laid flat
  const LIMIT = 2; // s from contact to the start of the reversal
  const CLOSE_SECONDS = 8; // a demonstration pace
  const REACTION = 0.3; // s: how long this simulated opener takes to sense contact and reverse

  const OBSTACLES = {
    clear: {
      name: "Nothing in the doorway",
      height: 0,
      ready: "The doorway is clear: the door should close all the way without reversing off the floor.",
    },
    board: {
      name: "A 2x4 laid flat (1½ in., 3.8 cm): the monthly test",
      height: BOARD,
      ready:
        "The board lies below the 6 in. beam, so the photo-eyes cannot see it: only the contact reversal can save it.",
    },
    toy: {
      name: "A toy truck, 8 in. tall",
      height: 8,
      ready: "The toy is taller than 6 in., so it crosses the photo-eye beam before the door moves.",
    },
    child: {
      name: "A child runs through while the door closes",
      height: 0,
      crossing: true,
      ready: "The doorway is clear when the door starts; halfway down, a child runs through the beam.",
    },
  };
  const CONDITIONS = {
    good: "Adjusted and aligned",
    eyes: "Photo-eyes knocked out of line",
    force: "Force or down limit set wrong",
  };

  // ---- The drawing: the doorway seen from inside, 2.62 px per inch ----
  const FLOOR = 280;
  const SCALE = 220 / HEIGHT;
  const Y = (inches) => FLOOR - inches * SCALE;
  const door = svg("rect", { x: 62, y: 60, width: 276, height: 0, fill: "#e5e9ef", stroke: "#8a96a8" });
  const joints = [1, 2, 3].map(() => svg("line", { x1: 62, x2: 338, stroke: "#8a96a8" }));
  const seal = svg("rect", { x: 62, width: 276, height: 4, fill: "#1d2430" });
  const beam = svg("line", {
    x1: 42,
    x2: 358,
    y1: Y(BEAM),
    y2: Y(BEAM),
    "stroke-width": 1.8,
    "stroke-dasharray": "7 5",
  });
  const ledLeft = svg("circle", { cx: 35, cy: Y(BEAM) - 9, r: 2.6 });
  const ledRight = svg("circle", { cx: 365, cy: Y(BEAM) - 9, r: 2.6 });
  const rightEye = svg(
    "g",
    {},
    svg("rect", { x: 358, y: Y(BEAM) - 6, width: 14, height: 12, rx: 2, fill: "#fde68a", stroke: "#92400e" }),
    ledRight,
  );
  const board = svg("rect", {
    x: 170,
    y: Y(BOARD),
    width: 60,
    height: BOARD * SCALE,
    fill: "#d4a373",
    stroke: "#7c5a2e",
    visibility: "hidden",
  });
  const toy = svg(
    "g",
    { visibility: "hidden" },
    svg("rect", { x: 176, y: Y(8), width: 48, height: 8 * SCALE - 6, rx: 3, fill: "#f59e0b", stroke: "#92400e" }),
    svg("circle", { cx: 186, cy: FLOOR - 4, r: 4, fill: "#1d2430" }),
    svg("circle", { cx: 214, cy: FLOOR - 4, r: 4, fill: "#1d2430" }),
  );
  const child = svg(
    "g",
    { visibility: "hidden" },
    svg("circle", { cx: 0, cy: Y(36) + 9, r: 9, fill: "#fcd9b6", stroke: "#92400e" }),
    svg("rect", { x: -9, y: Y(36) + 18, width: 18, height: 36, rx: 6, fill: "#2563eb" }),
    svg("path", {
      d: `M-6 ${Y(36) + 52} L-10 ${FLOOR} M6 ${Y(36) + 52} L10 ${FLOOR}`,
      stroke: "#1d2430",
      "stroke-width": 4,
    }),
  );
  const drawing = svg(
    "svg",
    {
      viewBox: "0 0 400 300",
      class: "lab-figure",
      role: "img",
      "aria-label": "A garage doorway seen from inside, with photo-eyes on both sides and the closing door",
    },
    svg("rect", { x: 0, y: 0, width: 400, height: 300, fill: "#e6f1fb" }),
    svg("path", { d: `M60 ${FLOOR} L340 ${FLOOR} L340 ${FLOOR - 70} L60 ${FLOOR - 70} Z`, fill: "#eceae4" }),
    svg("path", { d: `M60 ${FLOOR - 70} L340 ${FLOOR - 70}`, stroke: "#b9c7a5", "stroke-width": 6 }),
    svg("rect", { x: 0, y: FLOOR, width: 400, height: 20, fill: "#d6dbe3" }),
    svg("rect", { x: 0, y: 0, width: 400, height: 60, fill: "#eef1f5" }),
    svg("rect", { x: 0, y: 60, width: 60, height: 220, fill: "#eef1f5" }),
    svg("rect", { x: 340, y: 60, width: 60, height: 220, fill: "#eef1f5" }),
    board,
    toy,
    child,
    door,
    ...joints,
    seal,
    beam,
    svg("rect", { x: 28, y: Y(BEAM) - 6, width: 14, height: 12, rx: 2, fill: "#fde68a", stroke: "#92400e" }),
    ledLeft,
    rightEye,
    svg("text", { x: 66, y: Y(BEAM) - 6, "font-size": 10, fill: "#b91c1c" }, "photo-eye beam, 6 in. (15 cm) up"),
  );

  // ---- Controls, status and facts ----
  const obstacle = el("select", { id: "ssl-obstacle", "data-lab-input": "" });
  for (const [value, item] of Object.entries(OBSTACLES)) obstacle.append(el("option", { value }, item.name));
  const condition = el("select", { id: "ssl-condition" });
  for (const [value, text] of Object.entries(CONDITIONS)) condition.append(el("option", { value }, text));
  const close = el("button", { type: "button" }, "Close the door");
  const reset = el("button", { type: "button", class: "secondary" }, "Open it again");
  const timer = el("span", { class: "lab-badge" });
  const status = el("p", { class: "lab-result", "data-lab-output": "", role: "status" });
  const log = el("ol", { class: "ssl-log", "aria-label": "What happened" });
  const facts = el(
    "ul",
    { class: "ssl-facts" },
    el(
      "li",
      {},
      "Since 1 January 1991 US residential openers must reverse when the closing door hits something; since 1 January 1993 they also need a second protection device, in practice photo-eyes (UL 325, 16 CFR 1211).",
    ),
    el(
      "li",
      {},
      "The photo-eye beam sits no higher than 6 in. (15 cm) above the floor, with the eyes facing each other across the opening. Keep direct sun off the receiver.",
    ),
    el(
      "li",
      {},
      "Test every month: lay a 1½ in. (3.8 cm) object, such as a 2x4 flat, in the door's path at the center. The door must reverse on contact; opener manuals such as Linear's say the reversal must begin within 2 seconds.",
    ),
    el(
      "li",
      {},
      "Also break the beam with an object while the door closes: the door must reverse. A door that fails either test: disconnect the opener and call a technician.",
    ),
  );

  root.append(
    el(
      "div",
      { class: "lab-split" },
      el("div", {}, drawing),
      el(
        "div",
        {},
        el("div", { class: "lab-field" }, el("label", { for: "ssl-obstacle" }, "In the doorway"), obstacle),
        el("div", { class: "lab-field" }, el("label", { for: "ssl-condition" }, "The opener"), condition),
        el("div", { class: "lab-buttons" }, close, reset, timer),
        status,
        log,
      ),
    ),
    el(
      "details",
      { class: "lab-panel", open: "" },
      el("summary", {}, "What UL 325 and the safety checklists require"),
      facts,
    ),
  );

  // ---- The simulation ----
  obstacle.value = "board"; // the monthly test is the lesson; the other cases compare with it
  let height = HEIGHT; // of the door's bottom edge, in.
  let phase = "open"; // open | closing | contact | reversing | closed | stopped
  let contactTime = 0;
  let moved = false; // whether the door left the fully open position in this run
  let childX = -20;
  let running = false;
  let last = null;
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  const scenario = () => OBSTACLES[obstacle.value];
  const eyesAligned = () => condition.value !== "eyes";
  const childInBeam = () => scenario().crossing && childX > 36 && childX < 364;
  const beamBroken = () => !eyesAligned() || scenario().height > BEAM || childInBeam();

  function say(text, tone = "") {
    status.textContent = text;
    status.className = `lab-result ${tone}`.trim();
  }
  function note(text) {
    log.append(el("li", {}, text));
  }

  function draw() {
    const bottom = Y(height);
    set(door, { height: Math.max(0, bottom - 60) });
    joints.forEach((line, i) => {
      const y = bottom - (i + 1) * 21 * SCALE;
      set(line, { y1: y, y2: y, visibility: y > 62 ? "visible" : "hidden" });
    });
    set(seal, { y: bottom - 4, visibility: height < HEIGHT - 1 ? "visible" : "hidden" });
    const broken = beamBroken();
    set(beam, { stroke: broken ? "#9aa5b4" : "#dc2626", "stroke-opacity": eyesAligned() ? 1 : 0.25 });
    set(ledLeft, { fill: "#16a34a" });
    set(ledRight, { fill: eyesAligned() ? (broken ? "#9aa5b4" : "#16a34a") : "#9aa5b4" });
    set(rightEye, { transform: eyesAligned() ? "" : `rotate(-18 365 ${Y(BEAM)})` });
    set(board, { visibility: obstacle.value === "board" ? "visible" : "hidden" });
    set(toy, { visibility: obstacle.value === "toy" ? "visible" : "hidden" });
    set(child, {
      visibility: scenario().crossing && childX > -20 && childX < 420 ? "visible" : "hidden",
      transform: `translate(${childX} 0)`,
    });
    timer.textContent =
      phase === "contact" || (phase === "stopped" && contactTime > 0)
        ? `${contactTime.toFixed(1)} s since contact (limit ${LIMIT} s)`
        : "";
    timer.hidden = timer.textContent === "";
  }

  function ready() {
    if (running) return;
    phase = "open";
    height = HEIGHT;
    contactTime = 0;
    moved = false;
    childX = -20;
    log.replaceChildren();
    let text = scenario().ready;
    if (!eyesAligned()) text += " But the eyes no longer see each other.";
    else if (condition.value === "force") text += " This opener's force or travel limit is set wrong.";
    say(`${text} Press “Close the door”.`);
    close.disabled = false;
    draw();
  }

  function finish(text, tone) {
    running = false;
    say(text, tone);
    close.disabled = false;
    draw();
  }

  function step(seconds) {
    const speed = HEIGHT / CLOSE_SECONDS;
    if (phase === "closing") {
      if (scenario().crossing && height < HEIGHT / 2 + 6) childX += seconds * 220;
      if (beamBroken()) {
        if (!eyesAligned()) {
          note("The receiving eye sees no beam, so the opener refuses to close the door.");
          return finish(
            "The opener will not close while the photo-eyes are out of line (many openers flash their lights to say so). Clean the lenses and re-aim the eyes until both LEDs glow steadily.",
            "bad",
          );
        }
        phase = "reversing";
        note(
          height > HEIGHT - 1
            ? `The ${obstacle.value === "toy" ? "toy" : "obstacle"} blocks the beam: the opener will not start down.`
            : `Beam broken with the door ${Math.round(height)} in. above the floor: the opener reverses at once.`,
        );
        return;
      }
      height -= speed * seconds;
      moved = true;
      const floor = scenario().height;
      if (height <= floor) {
        height = floor;
        if (floor === 0) {
          note("The door reached the floor and stayed closed.");
          return finish(
            "Closed normally. With nothing in the way, the door closes fully without reversing off the floor.",
            "ok",
          );
        }
        phase = "contact";
        contactTime = 0;
        note("Contact with the board, 1½ in. above the floor. The beam at 6 in. never saw it.");
        say("The door is touching the board. Will the opener reverse within 2 seconds?");
      }
    } else if (phase === "contact") {
      contactTime += seconds;
      if (condition.value === "good" && contactTime >= REACTION) {
        phase = "reversing";
        note(`The opener felt the resistance and began reversing ${contactTime.toFixed(1)} s after contact.`);
      } else if (contactTime >= LIMIT) {
        phase = "stopped";
        note(`${LIMIT} s after contact the door is still pressing down on the board.`);
        return finish(
          "Test FAILED: the door did not reverse within 2 seconds of contact. Disconnect the opener, run the door by hand, and call a technician to set the force and travel limits.",
          "bad",
        );
      }
    } else if (phase === "reversing") {
      if (scenario().crossing) childX += seconds * 220;
      height += speed * 1.5 * seconds;
      if (height >= HEIGHT) {
        height = HEIGHT;
        const passed =
          obstacle.value === "board"
            ? `Test passed: the door reversed ${contactTime.toFixed(1)} s after touching the board, well within ${LIMIT} seconds.`
            : obstacle.value === "toy"
              ? "Protected by the photo-eyes: the door stays open while something blocks the beam."
              : "Protected by the photo-eyes: the door went back up before it reached the child.";
        if (moved) note("The door is fully open again.");
        return finish(passed, "ok");
      }
    }
  }

  function tick(now) {
    if (!running) return;
    const seconds = last === null ? 0 : Math.min(0.1, (now - last) / 1000);
    last = now;
    // Visitors who ask for less motion see the outcome at once.
    for (let i = 0; i < (reduced ? 400 : 1); i += 1) {
      step(reduced ? 0.05 : seconds);
      if (!running) break;
    }
    draw();
    if (running) requestAnimationFrame(tick);
  }

  close.addEventListener("click", () => {
    if (running) return;
    if (phase !== "open") ready();
    running = true;
    phase = "closing";
    last = null;
    close.disabled = true;
    say("Closing…");
    note(`Door closing from ${HEIGHT} in.`);
    requestAnimationFrame(tick);
  });
  reset.addEventListener("click", () => {
    running = false;
    ready();
  });
  obstacle.addEventListener("change", () => {
    running = false;
    ready();
  });
  condition.addEventListener("change", () => {
    running = false;
    ready();
  });
  ready();
})();
