// The score sheet under the table: per round and seat, bid/took (or tricks) and points.

import { _, h, clear, seatShown } from "./ui.js";

export function renderScores(sheet, game) {
  // the score sheet: per round and seat, bid/took (or tricks) and the points; the totals
  const table = clear(sheet);
  if (!game.rounds.length) return;
  const bids = game.rounds.some((r) => r.bids);
  table.append(h("caption", {}, bids ? _("bid/took, points") : _("tricks, points")));
  const head = h("tr", {}, h("th", {}, _("round")));
  for (let s = 0; s < game.players; s += 1) {
    // its name; "#2" where a phone has no room for five or more names (the seats say whose)
    head.append(h("th", { class: s === game.seat ? "mine" : "", title: game.label(s) },
      h("span", { class: "seat-no", "aria-hidden": "true" }, `#${seatShown(s)}`),
      h("span", { class: "seat-nm" }, game.short(s))));
  }
  table.append(h("thead", {}, head));
  const body = h("tbody", {});
  for (const row of game.rounds) {
    const tr = h("tr", {}, h("td", {}, String(row.round)));
    row.points.forEach((p, s) => {
      const took = row.bids ? `${row.bids[s]}/${row.tricks[s]}` : String(row.tricks[s]);
      const made = row.bids && row.bids[s] === row.tricks[s];
      // the two parts stay whole; a narrow column puts the points under bid/took
      tr.append(h("td", { class: made ? "made" : "" }, h("span", {}, `${took},`), " ",
        h("span", {}, `${p > 0 ? "+" : ""}${p}`)));
    });
    body.append(tr);
  }
  const total = h("tr", { class: "total" }, h("th", {}, _("total")));
  game.totals.forEach((t) => total.append(h("th", {}, String(t))));
  body.append(total);
  table.append(body);
}
