// The Animated Garage Door: a side view of a 16x7 door running its cycle. As the door rises the torsion
// spring unwinds (turns, torque, stored energy) while the weight hanging on the cables falls, which is
// what keeps the door balanced; a box in the photo-eye beam stops the door from closing. Play, pause,
// change the speed, or drag the position slider to stop the door anywhere.
// Numbers: the worked example of domain facts 7.1-7.2 (160 lb, 4 in. drums, 7.5 turns).
// SVG built with DOM APIs (the page's CSP allows no inline script or handlers).
(() => {
  "use strict";

  const root = document.getElementById("lab-interactive");
  if (!root) return;

  const { el, svg, set } = window.LabKit; // the shared DOM builders (lab-kit.js loads first)

  // ---- The physics (inches, pounds) ----
  const DOOR_WEIGHT = 160; // 16x7 insulated steel
  const HEIGHT = 84; // 7 ft opening
  const SECTIONS = 4;
  const SECTION = HEIGHT / SECTIONS;
  const DRUM_RADIUS = 2; // standard 4 in. drum
  const TURNS_CLOSED = 7.5; // 6.7 turns of cable plus the extra that keeps the cables taut when open
  const IPPT = (DOOR_WEIGHT * DRUM_RADIUS) / TURNS_CLOSED; // 42.7 inch-pounds per turn, both springs
  const RADIUS = 15; // the curve between vertical and horizontal track
  const CURVE = (Math.PI * RADIUS) / 2;
  const BEAM_HEIGHT = 6; // photo-eyes: no higher than 6 in. above the floor
  const OPEN_SECONDS = 6; // one full travel at 1x (a demonstration pace, not a claim about openers)
  const PAUSE_SECONDS = 1.2;

  // A point on the track, `s` inches from the floor along it: up the vertical track, round the curve,
  // then back along the horizontal track. The door is the chain of sections laid along this path.
  const track = (s) => {
    if (s <= HEIGHT) return [0, s];
    if (s <= HEIGHT + CURVE) {
      const angle = (s - HEIGHT) / RADIUS;
      return [RADIUS - RADIUS * Math.cos(angle), HEIGHT + RADIUS * Math.sin(angle)];
    }
    return [RADIUS + (s - HEIGHT - CURVE), HEIGHT + RADIUS];
  };
  const turnsLeft = (open) => TURNS_CLOSED - (open * HEIGHT) / (2 * Math.PI * DRUM_RADIUS);
  // The weight the cables hold: sections still upright hang on them; sections round the curve half
  // rest on the track (an approximation); sections on the horizontal track rest on it entirely.
  const cableLoad = (open) => {
    const bottom = open * HEIGHT;
    const upright = Math.max(0, HEIGHT - bottom);
    const curved = Math.max(0, Math.min(HEIGHT + CURVE, bottom + HEIGHT) - Math.max(HEIGHT, bottom));
    return (DOOR_WEIGHT * (upright + curved / 2)) / HEIGHT;
  };
  const springLift = (open) => (IPPT * turnsLeft(open)) / DRUM_RADIUS;
  const storedFtLb = (open) => (Math.PI * IPPT * turnsLeft(open) ** 2) / 12;

  // ---- The drawing: inches, y up, mapped into the SVG's y-down space ----
  const Y = (y) => 124 - y;
  const floor = svg("rect", { x: -46, y: Y(0), width: 200, height: 8, fill: "#d6dbe3" });
  const wall = svg("path", { d: `M-12 ${Y(124)} H-3 V${Y(HEIGHT + 2)} H-12 Z`, fill: "#cfd6e1" });
  const ceiling = svg("rect", { x: -12, y: Y(124), width: 166, height: 3, fill: "#cfd6e1" });
  const trackPath = [];
  for (let s = 0; s <= HEIGHT + CURVE + 112; s += 2) trackPath.push(track(s));
  const trackLine = svg("polyline", {
    points: trackPath.map(([x, y]) => `${x + 2.6},${Y(y)}`).join(" "),
    fill: "none",
    stroke: "#b8c1ce",
    "stroke-width": 2.4,
    "stroke-linejoin": "round",
  });
  const cable = svg("line", { stroke: "#1d2430", "stroke-width": 0.5 });
  const drum = svg("circle", {
    cx: 5,
    cy: Y(HEIGHT + 8),
    r: 3,
    fill: "#d6dbe3",
    stroke: "#5b6575",
    "stroke-width": 0.6,
  });
  const sections = Array.from({ length: SECTIONS }, () =>
    svg("line", { stroke: "#6b7890", "stroke-width": 3, "stroke-linecap": "butt" }),
  );
  const rollers = Array.from({ length: SECTIONS + 1 }, () => svg("circle", { r: 1.3, fill: "#1d2430" }));
  const rail = svg("rect", { x: 6, y: Y(114), width: 124, height: 1.6, fill: "#9aa5b4" });
  const powerhead = svg("rect", {
    x: 126,
    y: Y(118),
    width: 22,
    height: 10,
    rx: 1.5,
    fill: "#d6dbe3",
    stroke: "#5b6575",
    "stroke-width": 0.5,
  });
  const trolley = svg("rect", { width: 6, height: 3, fill: "#5b6575" });
  const arm = svg("line", { stroke: "#1d2430", "stroke-width": 0.9 });
  const eye = svg("rect", {
    x: 4,
    y: Y(BEAM_HEIGHT + 2),
    width: 4,
    height: 4,
    rx: 0.8,
    fill: "#fde68a",
    stroke: "#92400e",
    "stroke-width": 0.4,
  });
  const beam = svg("circle", { cx: 6, cy: Y(BEAM_HEIGHT), r: 1.1, fill: "#dc2626" });
  const box = svg("rect", {
    x: 3,
    y: Y(12),
    width: 20,
    height: 12,
    fill: "#d4a373",
    stroke: "#7c5a2e",
    "stroke-width": 0.5,
    visibility: "hidden",
  });
  // The spring seen end-on: the mark turns with the shaft, the ring's colour deepens with the wind.
  const springRing = svg("circle", { cx: -28, cy: Y(104), r: 9, fill: "none", "stroke-width": 3.2 });
  const springMark = svg("line", { x1: -28, y1: Y(104), x2: -28, y2: Y(113), stroke: "#1d2430", "stroke-width": 1 });
  const label = (x, y, text, anchor = "start") =>
    svg("text", { x, y: Y(y), "font-size": 4, fill: "#5b6575", "text-anchor": anchor }, text);

  const drawing = svg(
    "svg",
    {
      viewBox: "-46 0 200 134",
      class: "lab-figure",
      role: "img",
      "aria-label": "Side view of a garage door moving along its track, with the spring, the opener and the photo-eye",
    },
    svg("rect", { x: -46, y: 0, width: 200, height: 134, fill: "#fbfcfd" }),
    floor,
    wall,
    ceiling,
    trackLine,
    rail,
    powerhead,
    trolley,
    arm,
    box,
    drum,
    cable,
    ...sections,
    ...rollers,
    eye,
    beam,
    springRing,
    springMark,
    label(-28, 90, "spring, end view", "middle"),
    label(12, BEAM_HEIGHT + 4, "photo-eye"),
    label(60, 103, "track"),
    label(137, 101, "opener", "middle"),
    label(-40, 3, "outside"),
    label(150, 3, "inside the garage", "end"),
  );

  // ---- Controls and readouts ----
  const play = el("button", { type: "button", "aria-pressed": "false" }, "Play");
  const speed = el("select", { id: "anim-speed", "aria-label": "Speed" });
  for (const [value, text] of [
    ["0.5", "½× speed"],
    ["1", "1× speed"],
    ["2", "2× speed"],
  ]) {
    speed.append(el("option", { value }, text));
  }
  speed.value = "1";
  const position = el("input", {
    id: "anim-position",
    type: "range",
    min: "0",
    max: "100",
    step: "1",
    value: "45",
    "data-lab-input": "",
  });
  const positionValue = el("output", { for: "anim-position" });
  const obstacle = el(
    "button",
    { type: "button", class: "secondary", "aria-pressed": "false" },
    "Put a box in the beam",
  );

  const stat = (name) => {
    const value = el("span", { class: "lab-stat-value" });
    return [el("div", { class: "lab-stat" }, el("span", { class: "lab-stat-label" }, name), value), value];
  };
  const [turnsBox, turnsValue] = stat("Spring wind");
  const [energyBox, energyValue] = stat("Energy in the springs");
  const [holdBox, holdValue] = stat("To hold the door here");
  const bar = (name, colour) => {
    const fill = svg("rect", { x: 0, y: 0, height: 14, fill: colour });
    const text = el("span");
    const row = el(
      "div",
      { class: "anim-bar" },
      el("span", {}, name, " ", text),
      svg(
        "svg",
        { viewBox: "0 0 160 14", preserveAspectRatio: "none", "aria-hidden": "true" },
        svg("rect", { x: 0, y: 0, width: 160, height: 14, fill: "#e8ecf2" }),
        fill,
      ),
    );
    return [row, fill, text];
  };
  const [loadRow, loadFill, loadText] = bar("Weight on the cables:", "#5b6575");
  const [liftRow, liftFill, liftText] = bar("Spring lift:", "#c2410c");
  const status = el("p", { class: "lab-result", role: "status" });
  const readout = el("p", { class: "lab-note", "data-lab-output": "" });

  root.append(
    el(
      "div",
      { class: "anim-controls" },
      el("div", { class: "lab-buttons" }, play, speed, obstacle),
      el(
        "div",
        { class: "lab-field" },
        el("label", { for: "anim-position" }, "Door position"),
        position,
        positionValue,
      ),
    ),
    el(
      "div",
      { class: "anim-stage" },
      el("div", {}, drawing, readout),
      el(
        "div",
        {},
        el("div", { class: "lab-stats" }, turnsBox, energyBox, holdBox),
        el("div", { class: "anim-bars" }, loadRow, liftRow),
        status,
      ),
    ),
  );

  // ---- State and the animation loop ----
  let open = 0.45; // 0 closed, 1 fully open
  let direction = 1; // +1 opening, -1 closing
  let waiting = 0; // seconds left at the top or bottom before the next run
  let playing = false;
  let boxed = false;
  let last = null;
  let frame = 0;
  let visible = true;

  function say(text, tone = "") {
    if (status.textContent !== text) status.textContent = text;
    status.className = `lab-result ${tone}`.trim();
  }

  function draw() {
    const bottom = open * HEIGHT;
    const joints = Array.from({ length: SECTIONS + 1 }, (_, i) => track(bottom + i * SECTION));
    sections.forEach((line, i) => {
      const [x1, y1] = joints[i];
      const [x2, y2] = joints[i + 1];
      set(line, { x1: x1 + 1.2, y1: Y(y1), x2: x2 + 1.2, y2: Y(y2) });
    });
    rollers.forEach((dot, i) => set(dot, { cx: joints[i][0] + 2.6, cy: Y(joints[i][1]) }));
    const [bx, by] = joints[0];
    set(cable, { x1: 3, y1: Y(HEIGHT + 8), x2: bx + 2, y2: Y(by + 1) });
    const [tx, ty] = joints[SECTIONS];
    const trolleyX = Math.min(118, tx + 14);
    set(trolley, { x: trolleyX - 3, y: Y(113) });
    set(arm, { x1: trolleyX, y1: Y(112), x2: tx + 2, y2: Y(ty - 3) });

    const turns = turnsLeft(open);
    const angle = (-(TURNS_CLOSED - turns) * 2 * Math.PI) % (2 * Math.PI);
    set(springMark, { x2: -28 + 9 * Math.sin(angle), y2: Y(104) - 9 * Math.cos(angle) });
    const tension = Math.max(0, turns / TURNS_CLOSED);
    set(springRing, {
      stroke: `rgb(${Math.round(194 + 40 * (1 - tension))}, ${Math.round(65 + 150 * (1 - tension))}, ${Math.round(12 + 200 * (1 - tension))})`,
    });
    set(box, { visibility: boxed ? "visible" : "hidden" });
    set(beam, { fill: boxed ? "#9aa5b4" : "#dc2626" });

    const load = cableLoad(open);
    const lift = springLift(open);
    const hold = load - lift;
    turnsValue.textContent = `${turns.toFixed(1)} turns`;
    energyValue.textContent = `${Math.round(storedFtLb(open))} ft-lb`;
    holdValue.textContent =
      Math.abs(hold) < 0.5 ? "no force" : `${hold > 0 ? "push up" : "pull down"} ${Math.abs(hold).toFixed(0)} lb`;
    set(loadFill, { width: (160 * load) / DOOR_WEIGHT });
    set(liftFill, { width: (160 * lift) / DOOR_WEIGHT });
    loadText.textContent = `${load.toFixed(0)} lb`;
    liftText.textContent = `${lift.toFixed(0)} lb`;

    const percent = Math.round(open * 100);
    if (document.activeElement !== position) position.value = String(percent);
    positionValue.textContent = `${percent}% open`;
    readout.textContent =
      `Door ${percent}% open: the springs have ${turns.toFixed(1)} turns left and lift ${lift.toFixed(0)} lb ` +
      `while the cables hold ${load.toFixed(0)} lb of the ${DOOR_WEIGHT} lb door.`;
  }

  function step(seconds) {
    if (waiting > 0) {
      waiting -= seconds;
      return;
    }
    if (direction < 0 && boxed) {
      direction = 1; // the photo-eye sees the box: a closing door goes back up
      say("Beam blocked: the opener reversed and sends the door back up.", "bad");
    }
    open += (direction * seconds * Number(speed.value)) / OPEN_SECONDS;
    if (open >= 1) {
      open = 1;
      direction = -1;
      waiting = PAUSE_SECONDS;
      say(
        boxed
          ? "Fully open. The door will not close while the beam is blocked."
          : "Fully open: the springs are nearly unwound and the tracks carry the door.",
        boxed ? "bad" : "",
      );
    } else if (open <= 0) {
      open = 0;
      direction = 1;
      waiting = PAUSE_SECONDS;
      say("Closed: the springs are wound tight and balance the door's full weight.", "ok");
    } else if (!boxed) {
      say(
        direction > 0
          ? "Opening: the springs unwind and do the lifting."
          : "Closing: the door winds the springs back up; the beam is clear.",
      );
    }
  }

  function tick(now) {
    frame = 0;
    if (!playing || !visible) {
      last = null;
      return;
    }
    const seconds = last === null ? 0 : Math.min(0.1, (now - last) / 1000);
    last = now;
    step(seconds);
    draw();
    frame = requestAnimationFrame(tick);
  }

  function setPlaying(value) {
    playing = value;
    play.textContent = playing ? "Pause" : "Play";
    play.setAttribute("aria-pressed", String(playing));
    if (playing && !frame) frame = requestAnimationFrame(tick);
  }

  play.addEventListener("click", () => setPlaying(!playing));
  position.addEventListener("input", () => {
    setPlaying(false);
    open = Number(position.value) / 100;
    waiting = 0;
    say("Paused. Press Play to run the cycle from here.");
    draw();
  });
  obstacle.addEventListener("click", () => {
    boxed = !boxed;
    obstacle.setAttribute("aria-pressed", String(boxed));
    obstacle.textContent = boxed ? "Take the box away" : "Put a box in the beam";
    if (boxed)
      say(
        "A box now blocks the photo-eye beam, 6 in. above the floor. Watch what happens when the door tries to close.",
        "bad",
      );
    else say("The beam is clear again: the door may close.", "ok");
    if (boxed && !playing) direction = -1; // so Play shows the refusal straight away
    draw();
  });

  if ("IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      visible = entries.some((entry) => entry.isIntersecting);
      if (visible && playing && !frame) frame = requestAnimationFrame(tick);
    }).observe(root);
  }

  say("Press Play to run the door through its cycle, or drag the slider.");
  draw();
  // Motion starts by itself only for visitors who have not asked their system for less of it.
  if (!window.matchMedia("(prefers-reduced-motion: reduce)").matches) setPlaying(true);
})();
