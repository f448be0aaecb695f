// QR codes of links, made in this browser (vendor/qrcode.js, qrcode-generator 2.0.4): an invite
// link carries its token in the fragment, so it is never sent to a server to be drawn. A phone's
// camera opens the link; the code is an SVG of dark squares with the standard quiet zone.

import qrcode from "./vendor/qrcode.js";
import { el } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
const QUIET = 4; // modules of white around the code (ISO/IEC 18004)

/** The dark modules of `text`'s QR code (error correction M, the smallest version it fits). */
export function qrModules(text) {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const n = qr.getModuleCount();
  return Array.from({ length: n }, (_, row) => Array.from({ length: n }, (_, col) => qr.isDark(row, col)));
}

/** `text`'s QR code as an SVG element, named by `label` for screen readers. */
export function qrSvg(text, label) {
  const modules = qrModules(text);
  const size = modules.length + 2 * QUIET;
  const path = [];
  modules.forEach((row, y) => row.forEach((dark, x) => dark && path.push(`M${x + QUIET} ${y + QUIET}h1v1h-1z`)));
  const svg = document.createElementNS(SVG, "svg");
  for (const [k, v] of Object.entries({ viewBox: `0 0 ${size} ${size}`, class: "qr", role: "img", "aria-label": label, "shape-rendering": "crispEdges" })) {
    svg.setAttribute(k, v);
  }
  const back = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ width: size, height: size, fill: "#ffffff" })) back.setAttribute(k, v);
  const dark = document.createElementNS(SVG, "path");
  dark.setAttribute("d", path.join(""));
  dark.setAttribute("fill", "#000000");
  svg.append(back, dark);
  return svg;
}

/** A "QR code" disclosure for a link: the code is drawn when it is first opened. */
export function qrToggle(getText, label) {
  const box = el("details", { class: "qr-box" }, el("summary", {}, "QR code"));
  box.addEventListener("toggle", () => {
    if (!box.open) return;
    box.querySelector("svg.qr")?.remove();
    box.append(qrSvg(getText(), label));
  });
  return box;
}
