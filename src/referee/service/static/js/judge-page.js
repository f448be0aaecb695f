// The "Judge a log" page: paste or open a chat log (and, for a format the judge does not know,
// a format file), name the fighters (or let the judge read them from the announcement), and see the verdict, the anomalies, a chart of the damage dealt
// and the log line by line, as POST /api/judge answers. window.refereeJudge is for tests.

import { attempt, call, el, fill, say } from "./api.js";
import { orderText } from "./sentences.js";
import "./skip.js"; // the skip link moves the focus, not the address (its fragment)

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** Each fighter's damage dealt after each attack that counted, as two step lines. */
function chart(result) {
  const names = result.fighters.map((f) => f.name);
  const totals = Object.fromEntries(names.map((n) => [n, [0]]));
  for (const roll of result.rolls) {
    if (roll.use !== "attack" && roll.use !== "free-attack") continue;
    for (const n of names) totals[n].push(totals[n].at(-1) + (roll.name === n ? roll.damage : 0));
  }
  const [w, h, m] = [640, 240, 36];
  const steps = Math.max(1, result.attacks);
  const top = Math.max(result.threshold, ...names.map((n) => totals[n].at(-1)));
  const x = (i) => m + ((w - 2 * m) * i) / steps;
  const y = (v) => h - m - ((h - 2 * m) * v) / top;
  const root = svg("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": "Damage dealt over the spar" });
  root.append(svg("line", { class: "axis", x1: m, y1: y(0), x2: w - m, y2: y(0) }));
  root.append(svg("line", { class: "threshold", x1: m, y1: y(result.threshold), x2: w - m, y2: y(result.threshold) }));
  root.append(svg("text", { x: w - m, y: y(result.threshold) - 4, "text-anchor": "end" }, `defeat at ${result.threshold}`));
  names.forEach((n, i) => {
    const points = [];
    totals[n].forEach((v, k) => {
      if (k) points.push(`${x(k)},${y(totals[n][k - 1])}`);
      points.push(`${x(k)},${y(v)}`);
    });
    const cls = i === 0 ? "a" : "b";
    root.append(svg("polyline", { class: cls, points: points.join(" "), "data-fighter": n }));
    root.append(svg("text", { class: cls, x: m + 6, y: m - 16 + 14 * i }, `${n}: ${totals[n].at(-1)} dealt`));
  });
  return root;
}

function render(result) {
  const flagged = result.anomalies.length > 0;
  const verdict = $("verdict");
  verdict.className = `verdict ${flagged ? "flagged" : "clean"}`;
  verdict.textContent = result.verdict;
  const named = result.fighters.map((f) => `${f.name} (CS ${f.cs})`).join(", ");
  const order = result.order.length ? ` · ${orderText(result.order)}` : "";
  $("fighters-line").textContent = `Fighters: ${named} (${result.source})${order}`;
  fill(
    $("anomalies"),
    result.anomalies.map((a) =>
      el("li", { class: `anomaly ${a.kind}` }, el("a", { href: `#line-${a.line}` }, `line ${a.line}`), `: ${a.kind}: ${a.reason}`),
    ),
  );
  fill($("chart"), chart(result));
  $("chart-box").hidden = false;
  fill(
    $("judged-lines"),
    result.lines.map((line) =>
      el(
        "tr",
        { id: `line-${line.line}`, class: line.anomaly ? "anomaly" : line.roll ? "roll" : "line" },
        el("td", { class: "n" }, String(line.line)),
        el(
          "td",
          { class: "t" },
          el("span", { class: "text" }, line.text),
          line.notes.map((note) => el("span", { class: note.startsWith("!") ? "note bad" : "note" }, note)),
        ),
      ),
    ),
  );
}

function fighters() {
  const out = [];
  for (const side of ["a", "b"]) {
    const name = $(`name-${side}`).value.trim();
    const cs = $(`cs-${side}`).value.trim();
    if (name || cs) out.push(`${name}=${cs}`);
  }
  return out;
}

/** The format file given beside the log, as the route takes it (none when the box is empty). */
function formatFiles() {
  const text = $("format-text").value;
  if (!text.trim()) return [];
  const file = $("format-file").files[0];
  const name = file && $("format-text").dataset.from === file.name ? file.name : "pasted";
  return [{ name, text }];
}

async function judge(text, names, formats = formatFiles()) {
  // The host's public key, when one is given: its signed lines are checked by it, and its
  // unsigned host lines are forged. Without one the server checks signed lines by its own key.
  const key = $("host-key").value.trim();
  const body = { log: text, fighters: names };
  if (formats.length) body.format_files = formats;
  if (key) body.key = key;
  const result = await call("POST", "/api/judge", { body });
  render(result);
  const count = result.anomalies.length;
  say(count ? `Judged: ${count} ${count === 1 ? "anomaly" : "anomalies"} found.` : "Judged: no anomaly.", count ? "error" : "ok");
  return result;
}

/** A file's text: UTF-8 when it is, else cp1252 (old Windows chat logs). */
async function readFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/**
 * Clear the last verdict before a log is judged (and as soon as the input changes), so that no
 * verdict about one log stands beside another log or an error.
 */
function clearVerdict(text) {
  const verdict = $("verdict");
  verdict.className = "verdict";
  verdict.textContent = text;
  $("fighters-line").textContent = "";
  fill($("anomalies"), []);
  fill($("chart"), []);
  $("chart-box").hidden = true;
  fill($("judged-lines"), []);
  say("");
}

$("log-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) $("log-text").value = await readFile(file);
  clearVerdict("Not judged yet: the log changed. Press Judge.");
});

$("format-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (file) {
    $("format-text").value = await readFile(file);
    $("format-text").dataset.from = file.name;
  }
  clearVerdict("Not judged yet: the format file changed. Press Judge.");
});

$("judge-form").addEventListener("input", (event) => {
  if (event.target.id === "format-text") delete event.target.dataset.from;
  if (!["log-file", "format-file"].includes(event.target.id)) clearVerdict("Not judged yet: the input changed. Press Judge.");
});

$("judge-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  clearVerdict("Judging…");
  const result = await attempt(() => judge($("log-text").value, fighters()));
  if (result === undefined) {
    $("verdict").className = "verdict bad";
    $("verdict").textContent = `Not judged: ${$("message").textContent}`;
  }
});

window.refereeJudge = { judge, readFile };
