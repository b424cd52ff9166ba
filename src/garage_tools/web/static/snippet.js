/* Copy buttons for the code people paste into their own sites (templates/components/snippet.html): shown once
 * this script runs, they copy their textarea's code and say so. Where the clipboard is refused, the code is
 * selected so the reader can copy it by hand. */
(function () {
  "use strict";

  function say(button, text) {
    var status = button.parentNode.querySelector(".snippet-status");
    if (status) status.textContent = text;
  }

  function copy(button) {
    var code = document.getElementById(button.getAttribute("data-copy"));
    if (!code) return;
    var selectIt = function () {
      code.focus();
      code.select();
      say(button, "Selected: press Ctrl+C (or \u2318+C) to copy.");
    };
    if (!navigator.clipboard || !navigator.clipboard.writeText) { selectIt(); return; }
    navigator.clipboard.writeText(code.value).then(function () { say(button, "Copied."); }, selectIt);
  }

  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].hidden = false;
    buttons[i].addEventListener("click", function (event) { copy(event.currentTarget); });
  }
})();
