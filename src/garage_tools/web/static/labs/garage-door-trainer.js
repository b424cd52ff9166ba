// Garage Door Installation Trainer: a quiz that follows a sectional door installation in order (the stages of
// the lab's text), with the safety checks a good installer makes. Every answer is explained from
// domain-facts.md (sections 2, 4.5, 6.1, 6.2 and 7.1-7.3). The four answer buttons stay the same elements from
// question to question (the first is data-lab-input); only their text changes.
(() => {
  "use strict";
  const K = window.LabKit;

  const QUESTIONS = [
    {
      stage: "Before the door arrives",
      q: "An insulated door replaces an uninsulated one of the same size. What about the springs?",
      a: [
        "Nothing changes: springs fit any door",
        "The new door is 10-20% heavier, so springs are sized for it",
        "Insulated doors are lighter, so weaker springs do",
        "Add a few turns to the old springs yourself",
      ],
      correct: 1,
      why:
        "Foam adds 10 to 20 percent to a door's weight, and springs are chosen for the exact weight, height " +
        "and drums. A wrong spring makes even a new door heavy, jumpy and hard on the opener.",
    },
    {
      stage: "Before the door arrives",
      q: "Your opener was made in 1990. What should happen when the new door goes in?",
      a: [
        "Keep it: all openers reverse the same",
        "Just buy a new remote",
        "Replace it: it has no photo-eyes",
        "Tighten its chain",
      ],
      correct: 2,
      why:
        "Openers had to reverse on contact from 1991 and also needed photo-eyes or a door-edge sensor from " +
        "January 1, 1993 (UL 325). In California a new door may only be connected to an opener with battery " +
        "backup.",
    },
    {
      stage: "Sections, hinges and rollers",
      q: "Once the springs are wound, which parts carry their full tension?",
      a: [
        "The bottom brackets, where the lift cables attach",
        "The hinges between sections",
        "The bottom seal retainer",
        "The top-section strut",
      ],
      correct: 0,
      why:
        "The lift cables pull on the bottom brackets, so they are under spring tension: they carry a red " +
        "warning label, and nobody should loosen them on a finished door.",
    },
    {
      stage: "Tracks",
      q: "What does a good installer check on the tracks?",
      a: [
        "They press tightly against the door so it can't rattle",
        "They are greased inside",
        "They are plumb and parallel, with every fastener in framing",
        "They are painted to match the door",
      ],
      correct: 2,
      why:
        "Vertical tracks plumb and parallel, horizontal tracks level, fasteners in framing, a small even gap " +
        "to the frame. Bent or loose track makes noise and lets doors come off their rollers. Tracks are not " +
        "greased.",
    },
    {
      stage: "The counterbalance",
      q: "About how much is the spring wound for a 7 ft door on standard 4 in. drums?",
      a: [
        "About 7 quarter-turns",
        "About 30 quarter-turns (7.5 turns)",
        "About 12 quarter-turns",
        "About 60 quarter-turns",
      ],
      correct: 1,
      why:
        "Turns = door height ÷ drum circumference, plus 0.5 to 1: 84 ÷ (π × 4) = 6.7, so about 7.5 turns, or " +
        "30 quarter-turns. An 8 ft door takes about 34.",
    },
    {
      stage: "The counterbalance",
      q: "A torsion spring has broken. Who winds the new one?",
      a: [
        "You, with two long screwdrivers",
        "You, if you go slowly",
        "Anyone, once the door is open",
        "A trained technician with proper winding bars",
      ],
      correct: 3,
      why:
        "The springs of a typical double door store about 630 ft-lb; a slipping bar or a loose set-screw " +
        "releases it at once. Never adjust springs, cables or brackets yourself, and stop using the door " +
        "until it is repaired.",
    },
    {
      stage: "The counterbalance",
      q: "Later you want to add a strut or an insulation kit to the door. What is the catch?",
      a: [
        "The extra weight overloads a counterbalance sized for the old door",
        "There is none",
        "It voids the paint",
        "Struts make the door lighter",
      ],
      correct: 0,
      why:
        "DASMA advises homeowners against adding struts themselves: anything that makes the door heavier " +
        "upsets the spring balance the installer set.",
    },
    {
      stage: "The opener",
      q: "How high above the floor goes the photo-eye beam?",
      a: [
        "No higher than 6 inches",
        "Knee height, about 18 inches",
        "Waist height, to see the car",
        "Any height, if the lights are steady",
      ],
      correct: 0,
      why: "No higher than 6 in. (15 cm), sender and receiver facing each other across the opening, out of direct sun.",
    },
    {
      stage: "The opener",
      q: "Where is the wall push-button mounted?",
      a: [
        "At 3 ft so children can reach it",
        "At least 5 ft up, in sight of the door, away from moving parts",
        "Outside next to the door",
        "On the opener motor",
      ],
      correct: 1,
      why:
        "At least 5 ft above the floor, where you can see the door and away from moving parts. Keep children " +
        "away from the controls and remotes.",
    },
    {
      stage: "The opener",
      q: "The red emergency release handle...",
      a: [
        "locks the door and may hang at any height",
        "releases the spring tension and hangs at 7 ft",
        "disconnects the door from the opener and hangs no higher than 6 ft",
        "stops the motor and sits on the ceiling",
      ],
      correct: 2,
      why:
        "It frees the trolley so the door moves by hand. With weak or broken springs a released door can fall " +
        "fast, so use it with the door closed when you can.",
    },
    {
      stage: "The final walkthrough",
      q: "How, and how often, do you test the safety reversal?",
      a: [
        "Yearly: hold the closing door up with your hands",
        "Monthly: lay a 2x4 flat in the doorway; the door must reverse",
        "Only when new, with a paper-towel roll",
        "Monthly: step under the closing door",
      ],
      correct: 1,
      why:
        "Every month: a 2x4 laid flat (1-1/2 in.) at the center; the door must reverse on contact. DASMA " +
        "dropped the hold-the-door force test in 2006, and paper-towel rolls are unreliable. If it fails, " +
        "disconnect the opener and repair.",
    },
    {
      stage: "The final walkthrough",
      q: "Balance test: opener released, you lift the door halfway and let go. A healthy door...",
      a: ["stays about where you left it", "drops to the floor", "shoots up to the top", "needs two people to lift"],
      correct: 0,
      why:
        "A balanced door lifts with about 8-15 lb and stays put at knee, middle and chest height. If it " +
        "drifts down or shoots up, call a technician to adjust the springs. Test it monthly too.",
    },
  ];
  const LETTERS = ["A", "B", "C", "D"];

  K.start(() => {
    let index = 0;
    let score = 0;
    let answered = 0;
    let done = false;

    const progress = K.el("p", { class: "lk-hint" });
    // one pip per question: answered right, wrong, or the current one (the score is also in the text)
    const pips = QUESTIONS.map(() => K.el("li", { class: "lk-pip" }));
    const pipList = K.el("ol", { class: "lk-pips", "aria-hidden": "true" }, pips);
    const question = K.el("h3", { class: "lk-question", id: K.uid("question") });
    const buttons = LETTERS.map((letter, i) => {
      const button = K.el("button", { type: "button", class: "secondary lk-answer", "data-lab-input": i === 0 });
      button.addEventListener("click", () => choose(i));
      return button;
    });
    const feedback = K.el("p", { class: "lab-result", "data-lab-output": true });
    const why = K.el("p", { class: "lk-why" });
    const next = K.el("button", { type: "button", hidden: true });
    next.addEventListener("click", advance);

    function show() {
      const item = QUESTIONS[index];
      progress.textContent = `Question ${index + 1} of ${QUESTIONS.length} · ${item.stage}`;
      question.textContent = item.q;
      buttons.forEach((button, i) => {
        button.textContent = `${LETTERS[i]}. ${item.a[i]}`;
        button.disabled = false;
        button.classList.remove("lk-right", "lk-wrong");
      });
      feedback.className = "lab-result";
      feedback.textContent = `Choose an answer. Score so far: ${score} of ${answered}.`;
      why.textContent = "";
      next.hidden = true;
      pips.forEach((pip, i) => pip.classList.toggle("lk-pip-current", i === index));
    }

    function choose(i) {
      const item = QUESTIONS[index];
      if (buttons[i].disabled) return;
      const right = i === item.correct;
      answered += 1;
      if (right) score += 1;
      pips[index].classList.add(right ? "lk-pip-right" : "lk-pip-wrong");
      buttons.forEach((button, j) => {
        button.disabled = true;
        if (j === item.correct) button.classList.add("lk-right");
        else if (j === i) button.classList.add("lk-wrong");
      });
      feedback.className = `lab-result ${right ? "ok" : "bad"}`;
      const verdict = right ? "Correct." : `Not quite: the answer is ${LETTERS[item.correct]}.`;
      feedback.textContent = `${verdict} Score: ${score} of ${answered}.`;
      why.textContent = item.why;
      const last = index === QUESTIONS.length - 1;
      next.textContent = last ? "See my result" : "Next question";
      next.hidden = false;
      next.focus();
    }

    function finish() {
      done = true;
      progress.textContent = "Done";
      question.textContent = `You scored ${score} of ${QUESTIONS.length}.`;
      buttons.forEach((button) => (button.hidden = true));
      feedback.className = `lab-result ${score >= QUESTIONS.length - 2 ? "ok" : "bad"}`;
      if (score === QUESTIONS.length)
        feedback.textContent = "A perfect score. Keep up the monthly reversal and balance tests.";
      else if (score >= QUESTIONS.length - 2)
        feedback.textContent = "Nearly all right: read the explanations for the ones you missed.";
      else
        feedback.textContent = "Read the explanations again and have another go: the monthly tests take five minutes.";
      why.textContent = "";
      next.textContent = "Start again";
      next.focus();
    }

    function advance() {
      if (done) {
        [index, score, answered, done] = [0, 0, 0, false];
        pips.forEach((pip) => pip.classList.remove("lk-pip-right", "lk-pip-wrong"));
        buttons.forEach((button) => (button.hidden = false));
      } else if (index === QUESTIONS.length - 1) {
        finish();
        return;
      } else {
        index += 1;
      }
      show();
      buttons[0].focus();
    }

    show();
    return [
      K.el(
        "div",
        { class: "lab-panel lk-quiz" },
        K.el("div", { class: "lk-quiz-top" }, progress, pipList),
        question,
        K.el("div", { class: "lk-answers", role: "group", "aria-labelledby": question.id }, buttons),
        K.el("div", { role: "status", "aria-live": "polite" }, feedback, why),
        K.el("div", { class: "lab-buttons" }, next),
      ),
    ];
  });
})();
