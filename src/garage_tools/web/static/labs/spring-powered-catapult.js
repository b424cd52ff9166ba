// Spring-Powered Catapult: a spring stores E = 1/2 k x^2; the share that reaches the projectile sets its speed,
// v = sqrt(2 E efficiency / m), and on flat ground (no air drag) the range is v^2 sin(2 angle) / g. The same
// arithmetic on a garage door's torsion springs (852 J for the worked example of domain-facts.md 7.2) shows why a
// breaking spring, or a slipping winding bar, is dangerous.
(() => {
  "use strict";
  const K = window.LabKit;

  const G = 9.81; // m/s^2
  const DOOR_SPRINGS_J = 852; // two torsion springs, 160 lb 16x7 door, closed (domain-facts.md 7.2)
  const MPH_PER_MS = 2.23694;
  const J_TO_FT_LB = 0.737562;

  K.start(() => {
    const k = K.rangeField({
      label: "Spring constant k",
      unit: "N/m",
      min: 50,
      max: 3000,
      step: 10,
      value: 400,
      onChange: update,
    });
    const draw = K.rangeField({
      label: "Draw (how far you pull)",
      unit: "cm",
      min: 1,
      max: 50,
      step: 1,
      value: 20,
      main: true,
      onChange: update,
    });
    const mass = K.rangeField({
      label: "Projectile mass",
      unit: "g",
      min: 5,
      max: 500,
      step: 5,
      value: 50,
      onChange: update,
    });
    const efficiency = K.rangeField({
      label: "Efficiency",
      unit: "%",
      min: 10,
      max: 100,
      step: 1,
      value: 70,
      onChange: update,
      hint: "The share of the spring's energy that reaches the projectile; the arm and the spring keep the rest.",
    });
    const angle = K.rangeField({
      label: "Launch angle",
      unit: "°",
      min: 5,
      max: 85,
      step: 1,
      value: 45,
      onChange: update,
    });

    const { element: headline, cards } = K.headline({
      energy: "Stored energy",
      speed: "Launch speed",
      range: "Range, flat ground",
    });
    const formula = K.el("p", { class: "lk-formula" });
    const compare = K.el("p", { class: "lab-note lk-warn" });

    const canvas = K.el("canvas", { class: "lk-canvas", role: "img", "aria-label": "Trajectory of the projectile" });
    const context = canvas.getContext("2d");
    let last = null; // the latest flight, redrawn when the canvas changes size

    function flight() {
      const x = draw.read() / 100;
      const energy = 0.5 * k.read() * x ** 2;
      const m = mass.read() / 1000;
      const speed = Math.sqrt((2 * energy * (efficiency.read() / 100)) / m);
      const theta = (angle.read() * Math.PI) / 180;
      return {
        energy,
        speed,
        theta,
        range: (speed ** 2 * Math.sin(2 * theta)) / G,
        peak: (speed * Math.sin(theta)) ** 2 / (2 * G),
        time: (2 * speed * Math.sin(theta)) / G,
      };
    }

    function paint() {
      if (!last) return;
      const css = getComputedStyle(canvas);
      const width = canvas.clientWidth || 320;
      const height = Math.round(width * 0.45);
      const ratio = window.devicePixelRatio || 1;
      if (canvas.width !== Math.round(width * ratio)) {
        canvas.width = Math.round(width * ratio);
        canvas.height = Math.round(height * ratio);
      }
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, width, height);
      const pad = { left: 28, right: 14, top: 14, bottom: 26 };
      // One scale for both axes, so the arc keeps its true shape.
      const span = Math.max(last.range, 2 * last.peak, 1);
      const scale = Math.min(
        (width - pad.left - pad.right) / span,
        (height - pad.top - pad.bottom) / Math.max(last.peak, 0.5),
      );
      const X = (m) => pad.left + m * scale;
      const Y = (m) => height - pad.bottom - m * scale;
      context.strokeStyle = css.getPropertyValue("--lab-line") || "#cfd6e1";
      context.lineWidth = 2;
      context.beginPath();
      context.moveTo(0, Y(0));
      context.lineTo(width, Y(0));
      context.stroke();
      // the launch direction, dashed, with its angle
      context.strokeStyle = css.getPropertyValue("--muted") || "#5b6575";
      context.lineWidth = 1;
      context.setLineDash([4, 3]);
      context.beginPath();
      context.moveTo(X(0), Y(0));
      context.lineTo(X(0) + 40 * Math.cos(last.theta), Y(0) - 40 * Math.sin(last.theta));
      context.stroke();
      context.setLineDash([]);
      context.fillStyle = css.getPropertyValue("--muted") || "#5b6575";
      context.font = "12px system-ui, sans-serif";
      context.textAlign = "left";
      context.fillText(`${K.fmt(angle.read())}°`, X(0) + 44, Y(0) - 4);
      context.strokeStyle = css.getPropertyValue("--accent") || "#0b5cad";
      context.lineWidth = 3;
      context.beginPath();
      for (let i = 0; i <= 60; i += 1) {
        const t = (last.time * i) / 60;
        const px = last.speed * Math.cos(last.theta) * t;
        const py = last.speed * Math.sin(last.theta) * t - 0.5 * G * t * t;
        if (i === 0) context.moveTo(X(px), Y(py));
        else context.lineTo(X(px), Y(Math.max(py, 0)));
      }
      context.stroke();
      context.fillStyle = css.getPropertyValue("--lab-spring") || "#c2410c";
      context.beginPath();
      context.arc(X(last.range), Y(0), 5, 0, 2 * Math.PI);
      context.fill();
      context.fillStyle = css.getPropertyValue("--ink") || "#1d2430";
      context.font = "12px system-ui, sans-serif";
      context.textAlign = "center";
      context.fillText(`${K.fmt(last.range, 1)} m`, Math.min(X(last.range), width - 30), height - 8);
      context.fillText(`peak ${K.fmt(last.peak, 1)} m`, X(last.range / 2), Math.max(Y(last.peak) - 6, 12));
    }

    function update() {
      last = flight();
      cards.energy.textContent = `${K.fmt(last.energy, last.energy < 10 ? 2 : 1)} J`;
      cards.speed.textContent = `${K.fmt(last.speed, 1)} m/s (${K.fmt(last.speed * MPH_PER_MS)} mph)`;
      cards.range.textContent = `${K.fmt(last.range, 1)} m`;
      formula.textContent =
        `E = ½ × ${K.fmt(k.read())} × ${K.fmt(draw.read() / 100, 2)}² = ${K.fmt(last.energy, 2)} J; ` +
        `v = √(2 × E × ${K.fmt(efficiency.read())}% ÷ ${K.fmt(mass.read() / 1000, 3)} kg) = ` +
        `${K.fmt(last.speed, 1)} m/s; ` +
        `range = v² × sin(2 × ${K.fmt(angle.read())}°) ÷ g = ${K.fmt(last.range, 1)} m; ` +
        `flight ${K.fmt(last.time, 2)} s.`;
      const barSpeed = Math.sqrt((2 * DOOR_SPRINGS_J) / 1); // all of it into a 1 kg winding bar, ideal case
      compare.textContent =
        `A garage door's two torsion springs (160 lb door, closed) hold about ${K.fmt(DOOR_SPRINGS_J)} J ` +
        `(${K.fmt(DOOR_SPRINGS_J * J_TO_FT_LB)} ft-lb): ${K.fmt(DOOR_SPRINGS_J / last.energy)} times this catapult. ` +
        `In the ideal case that is enough to throw a 1 kg winding bar at ${K.fmt(barSpeed)} m/s ` +
        `(${K.fmt(barSpeed * MPH_PER_MS)} mph). That is why winding, unwinding and replacing springs ` +
        "is a trained technician's job.";
      paint();
    }

    if (window.ResizeObserver) new ResizeObserver(paint).observe(canvas);
    update();
    return [
      headline,
      K.split(K.group("The catapult", [draw, k, mass, efficiency, angle]), K.stack(K.panel(canvas), formula, compare)),
    ];
  });
})();
