// Bundle host.mjs and the packages it imports into dist/host.js (one script, no outside requests at run time).
import { build } from "esbuild";

await build({
  entryPoints: ["host.mjs"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "chrome120",
  outfile: "dist/host.js",
  logLevel: "warning",
});
