/* /developers/widget: the code follows the generator's fields as they are typed (the form's button still
 * updates the preview, and without this script the page writes the same code on the server). The checks are
 * the server's (web/widget.py WidgetOptions): what the widget would ignore is left out. */
(function () {
  "use strict";
  var form = document.querySelector(".widget-options");
  var code = document.getElementById("widget-code");
  if (!form || !code) return;
  var script = code.value.split("\n").slice(1).join("\n");
  var DEFAULT_ACCENT = "#0b5cad";

  function quote(value) {
    return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function update() {
    var partner = form.partner.value.trim();
    var zip = form.zip.value.trim().slice(0, 200);
    var accent = form.accent.value.trim().toLowerCase();
    var parts = ["data-garage-doors"];
    if (/^[A-Za-z0-9_.-]{1,64}$/.test(partner)) parts.push('data-partner-id="' + quote(partner) + '"');
    if (zip) parts.push('data-zip="' + quote(zip) + '"');
    if (/^#[0-9a-f]{6}$/.test(accent) && accent !== DEFAULT_ACCENT) parts.push('data-accent="' + accent + '"');
    if (form.compact.checked) parts.push("data-compact");
    if (/^(en|es)$/.test(form.lang.value)) parts.push('data-lang="' + form.lang.value + '"');
    code.value = "<div " + parts.join(" ") + "></div>\n" + script;
  }

  form.addEventListener("input", update);
  form.addEventListener("change", update);
})();
