// The test host page's script: the official MCP Apps host side (AppBridge and PostMessageTransport from
// @modelcontextprotocol/ext-apps) mounting one view in a sandboxed frame, as an assistant would.
// scripts/setup-apps-host.sh bundles it into dist/host.js; tests/e2e/test_mcp_apps_browser.py loads it.
// `mountView(html, toolInput, toolResult)` shows a view and hands it the tool's arguments and result;
// the calls the view asks the host to make, the links it opens and its heights are kept on `window.host`
// for the test to read. `window.host.answerCall` (set by the test) answers a `tools/call` the view makes.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.host = { calls: [], links: [], heights: [], initialized: false, answerCall: null };

window.mountView = async function mountView(html, toolInput, toolResult) {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = "Tool answer";
  frame.style.width = "100%";
  frame.style.border = "1px solid #ccc";
  document.getElementById("chat").appendChild(frame);

  const bridge = new AppBridge(null, { name: "garage-tools-test-host", version: "1.0.0" }, {
    openLinks: {},
    serverTools: {},
  });
  bridge.oncalltool = async (params) => {
    window.host.calls.push(params);
    if (window.host.answerCall) return await window.host.answerCall(params);
    return { content: [{ type: "text", text: "{}" }], structuredContent: {}, isError: false };
  };
  bridge.onopenlink = async ({ url }) => {
    window.host.links.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) {
      window.host.heights.push(height);
      frame.style.height = `${height}px`;
    }
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = () => {
      window.host.initialized = true;
      resolve();
    };
  });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
};
