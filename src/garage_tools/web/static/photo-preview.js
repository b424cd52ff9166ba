// The photo check's preview: the chosen picture (from the library or the camera: the input forces neither)
// is shown under the field before it is sent, so a wrong or blurred one can be swapped first. Read as a
// data: URL, which the pages' Content-Security-Policy allows for images (blob: it does not).
(() => {
  "use strict";
  const input = document.getElementById("photo-file");
  const preview = document.getElementById("photo-preview");
  if (!input || !preview || !window.FileReader) return;
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    preview.hidden = true;
    preview.removeAttribute("src");
    if (!file || !file.type.startsWith("image/")) return;
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      preview.src = String(reader.result);
      preview.hidden = false;
    });
    reader.readAsDataURL(file);
  });
})();
