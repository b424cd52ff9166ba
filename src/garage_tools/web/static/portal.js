// Developer portal: copy a new key to the clipboard, and ask before revoking a key.
// Served from /static (the pages' Content-Security-Policy allows no inline script).
(() => {
  "use strict";

  const copy = async (text) => {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    if (!done) throw new Error("copy refused");
  };

  const selectText = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  };

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const id = button.getAttribute("data-copy");
    const source = document.getElementById(id);
    const status = document.querySelector(`[data-copy-status="${id}"]`);
    if (!source) return;
    try {
      await copy(source.textContent.trim());
      if (status) status.textContent = "Copied.";
    } catch {
      selectText(source);
      if (status) status.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
    }
  });

  document.addEventListener("submit", (event) => {
    const question = event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });
})();
