// Cards as SVG, drawn with the DOM (no innerHTML, so no text is ever read as markup).
// Xactika: four rows of shapes as the physical cards show them (balls, cubes, cones,
// stars; 1 to 3 of each) and the value (their sum) in the corners. Dix: an ordinary
// playing card, rank and suit, red or black; JK is the joker. Every card has an
// accessible name: "value 8: 2 balls, 1 cube, 3 cones, 2 stars", "ten of diamonds".

import { _, ngettext } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
export const SHAPES = ["ball", "cube", "cone", "star"];
export const SHAPE_TOKENS = ["ba", "cu", "co", "st"];
const SHAPE_COLOURS = ["#c0392b", "#2364aa", "#1e8449", "#b9770e"];
// the words in the page's language (ui.js has loaded the catalog before this runs)
const RANKS = { "2": _("two"), "3": _("three"), "4": _("four"), "5": _("five"), "6": _("six"),
  "7": _("seven"), "8": _("eight"), "9": _("nine"), T: _("ten"), J: _("jack"), Q: _("queen"),
  K: _("king"), A: _("ace") };
const SUITS = { S: [_("spades"), "\u2660", false], H: [_("hearts"), "\u2665", true],
  D: [_("diamonds"), "\u2666", true], C: [_("clubs"), "\u2663", false] };
// "2 balls", "1 cube": one message a shape, its plural by the catalog's rule
const SHAPE_WORDS = [
  (n) => ngettext("{n} ball", "{n} balls", n, { n }),
  (n) => ngettext("{n} cube", "{n} cubes", n, { n }),
  (n) => ngettext("{n} cone", "{n} cones", n, { n }),
  (n) => ngettext("{n} star", "{n} stars", n, { n }),
];

function el(name, attrs) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  return node;
}

function text(x, y, body, attrs) {
  const node = el("text", Object.assign({ x, y }, attrs || {}));
  node.textContent = body;
  return node;
}

let face = ""; // how the game's cards are drawn (/api/games "cards"); "" guesses by the text

/** Draw cards as the game says: "shapes" (four rows of shapes), "suits" (rank and suit)
 * or "text" (the card's own text, for a game the page has no drawing for). */
export function setFace(kind) {
  face = kind || "";
}

/** True for a card drawn as four rows of shapes: four digits 1-3. */
export function isXactika(card) {
  return face ? face === "shapes" : /^[1-3]{4}$/.test(card);
}

function plain() {
  return face === "text";
}

/** The counts of a Xactika card, [balls, cubes, cones, stars]. */
export function counts(card) {
  return [...card].map(Number);
}

/** A call's words: "2st" -> "2 stars", "1ba" -> "1 ball". */
export function callWords(call) {
  const m = /^([1-3])(ba|cu|co|st)/.exec(call || "");
  if (!m) return call || "";
  return SHAPE_WORDS[SHAPE_TOKENS.indexOf(m[2])](Number(m[1]));
}

/** The card's accessible name, as a person would read the physical card. */
export function cardLabel(card) {
  if (card === "?" || !card) return _("a face-down card");
  if (plain()) return card;
  if (isXactika(card)) {
    const c = counts(card);
    const value = c.reduce((a, b) => a + b, 0);
    const parts = c.map((n, i) => SHAPE_WORDS[i](n));
    return _("value {value}: {shapes}", { value, shapes: parts.join(", ") });
  }
  if (card === "JK") return _("the joker");
  const suit = SUITS[card.slice(-1)];
  const rank = RANKS[card.slice(0, -1)];
  if (!suit || !rank) return card;
  return _("{rank} of {suit}", { rank, suit: suit[0] });
}

function shape(kind, cx, cy, r, colour) {
  const fill = { fill: colour, stroke: "#222", "stroke-width": 0.8 };
  if (kind === 0) return el("circle", Object.assign({ cx, cy, r }, fill));
  if (kind === 1) {
    return el("rect", Object.assign({ x: cx - r * 0.9, y: cy - r * 0.9,
      width: r * 1.8, height: r * 1.8 }, fill));
  }
  if (kind === 2) {
    const pts = [[cx, cy - r], [cx + r, cy + r * 0.85], [cx - r, cy + r * 0.85]];
    return el("polygon", Object.assign({ points: pts.map((p) => p.join(",")).join(" ") }, fill));
  }
  const pts = [];
  for (let i = 0; i < 10; i += 1) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 === 0 ? r * 1.1 : r * 0.45;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(2)},${(cy + rr * Math.sin(a)).toFixed(2)}`);
  }
  return el("polygon", Object.assign({ points: pts.join(" ") }, fill));
}

function xactikaFace(svg, card) {
  const c = counts(card);
  const value = c.reduce((a, b) => a + b, 0);
  svg.append(text(6, 15, String(value), { class: "card-value", "font-size": 13,
    "font-weight": "bold" }));
  svg.append(text(54, 89, String(value), { class: "card-value", "font-size": 13,
    "font-weight": "bold", "text-anchor": "end" }));
  c.forEach((n, row) => {
    const y = 24 + row * 16;
    for (let k = 0; k < n; k += 1) {
      const x = 30 + (k - (n - 1) / 2) * 14;
      svg.append(shape(row, x, y, 5.2, SHAPE_COLOURS[row]));
    }
  });
}

function dixFace(svg, card) {
  if (card === "JK") {
    svg.append(text(30, 52, "\u2605", { "font-size": 30, "text-anchor": "middle",
      fill: "#6c3483" }));
    svg.append(text(6, 15, "JK", { "font-size": 12, "font-weight": "bold", fill: "#6c3483" }));
    return;
  }
  const suit = SUITS[card.slice(-1)] || ["", "?", false];
  const rank = card.slice(0, -1) === "T" ? "10" : card.slice(0, -1);
  const colour = suit[2] ? "#c0392b" : "#1b1b1b";
  svg.append(text(6, 16, rank, { "font-size": 14, "font-weight": "bold", fill: colour }));
  svg.append(text(6, 30, suit[1], { "font-size": 13, fill: colour }));
  svg.append(text(30, 62, suit[1], { "font-size": 32, "text-anchor": "middle", fill: colour }));
  svg.append(text(54, 88, rank, { "font-size": 14, "font-weight": "bold", fill: colour,
    "text-anchor": "end" }));
}

/** An SVG element drawing ``card`` ("1323", "TD", "JK", or "?" face down). */
export function cardSvg(card, opts) {
  const options = opts || {};
  const svg = el("svg", { viewBox: "0 0 60 94", class: "card-svg", role: "img",
    "aria-label": cardLabel(card) });
  if (options.width) svg.setAttribute("width", options.width);
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 92, rx: 6,
    class: card === "?" ? "card-back" : "card-face" }));
  if (card === "?" || !card) return svg;
  if (plain()) {
    svg.append(text(30, 54, card, { "font-size": card.length > 3 ? 12 : 20,
      "text-anchor": "middle", "font-weight": "bold" }));
  } else if (isXactika(card)) xactikaFace(svg, card);
  else dixFace(svg, card);
  return svg;
}

/** A small shape icon for a call ("2st": two stars), with its words as its name. */
export function callSvg(call) {
  const m = /^([1-3])(ba|cu|co|st)/.exec(call || "");
  const n = m ? Number(m[1]) : 1;
  const svg = el("svg", { viewBox: `0 0 ${n * 15 + 1} 16`, width: n * 15 + 1, height: 16,
    class: "call-svg", role: "img", "aria-label": callWords(call) });
  if (!m) return svg;
  const row = SHAPE_TOKENS.indexOf(m[2]);
  for (let k = 0; k < Number(m[1]); k += 1) {
    svg.append(shape(row, 8 + k * 15, 8, 5.5, SHAPE_COLOURS[row]));
  }
  return svg;
}
