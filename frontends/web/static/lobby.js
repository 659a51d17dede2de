// The lobby: the tables, their seats, names and spectators; create, sit, invite, watch.
import { _, $, clear, h, ngettext, pgettext, seatShown } from "./ui.js";

const store = window.localStorage;

let games = []; // every game's facts, from the server (/api/games)

function seatRows() {
  const box = $("#seat-kinds");
  const players = Number($("#players").value) || 2;
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  clear(box);
  for (let s = 0; s < players; s += 1) {
    const select = h("select", { id: `seat-${s}`, "aria-label": _("seat {n}", { n: seatShown(s) }) });
    select.append(h("option", { value: "open" }, _("open seat (a person)")));
    for (const level of (chosen() || { levels: [] }).levels) {
      select.append(h("option", { value: level.id }, _("bot: {name} (level {n})", { name: level.name, n: level.id })));
    }
    const wanted = kept[s] || (s === 0 ? "open" : "3"); // level 3 is offered in every game
    select.value = [...select.options].some((o) => o.value === wanted) ? wanted : "3";
    box.append(h("label", {}, _("seat {n}", { n: seatShown(s) }) + " ", select));
  }
}

function chosen() {
  return games.find((g) => g.name === $("#game").value) || games[0];
}

/** The form for the chosen game, from its facts: modes, players, rounds, options. */
function gameChanged() {
  const g = chosen();
  if (!g) return;
  const mode = clear($("#mode"));
  for (const m of g.modes) mode.append(h("option", { value: m.id }, m.name));
  const players = $("#players");
  players.min = String(g.players.min);
  players.max = String(g.players.max);
  players.value = String(g.players.default);
  players.disabled = g.players.min === g.players.max;
  $("#rounds").value = String(g.rounds);
  $("#rounds").max = String(g.maxRounds);
  const box = clear($("#options"));
  for (const o of g.options) {
    const attrs = { id: `option-${o.name}`, "data-option": o.name };
    const input = o.choices && o.choices.length ? h("select", attrs)
      : h("input", Object.assign(attrs, o.type === "int" ? { type: "number", min: "1", max: String(o.max) } : { type: "text" }));
    if (input.tagName === "SELECT") { // a few values: the game's default ("") or one of them
      input.append(h("option", { value: "" }, _("the game's default")));
      for (const c of o.choices) input.append(h("option", { value: c }, (o.choiceNames || {})[c] || c));
    }
    if (o.suggest !== null && o.suggest !== undefined) input.value = String(o.suggest);
    box.append(h("label", {}, `${o.label} `, input));
  }
  seatRows();
}

/** "300+5" from the minutes and seconds a move; "none" for no clock. */
function clockText() {
  const minutes = Number($("#clock-min").value) || 0;
  const inc = Number($("#clock-inc").value) || 0;
  return minutes > 0 ? `${Math.round(minutes * 60)}+${inc}` : "none";
}

/** "5 min + 15 s a move" from the server's "300+15". */
function clockWords(text) {
  const [base, inc] = String(text).split("+").map(Number);
  const min = base / 60;
  const head = Number.isInteger(min) ? _("{n} min", { n: min }) : _("{n} s", { n: base });
  return inc ? _("time per player: {time} + {inc} s a move", { time: head, inc })
    : _("time per player: {time}", { time: head });
}

/** What a person's timeout costs at the table (spec/SERVER.md section 2, "People"). */
function timeoutWords(t) {
  if (t.on_timeout === "forfeit") return _("a timeout forfeits the seat");
  if (!t.timeouts) return _("a bot plays for whoever runs out of time");
  return ngettext("the first timeout forfeits the seat",
    "a bot plays for whoever runs out of time; timeout {n} forfeits the seat", t.timeouts,
    { n: t.timeouts });
}

// the server's words for a table's and a seat's state, as a person reads them
const STATES = { waiting: pgettext("table", "waiting"), playing: pgettext("table", "playing"),
  over: pgettext("table", "over") };
const SEAT_STATES = { open: pgettext("seat", "open"), taken: pgettext("seat", "taken"),
  playing: pgettext("seat", "playing"), left: pgettext("seat", "left: a bot plays"),
  bot: _("bot") };

function tableWords(t) {
  const g = games.find((x) => x.name === t.game);
  const m = g ? g.modes.find((x) => x.id === t.mode) : null;
  const length = t.length || ngettext("{n} round", "{n} rounds", t.rounds, { n: t.rounds });
  return _("{game}, {mode}, {players} players, {length}", { game: g ? g.title : t.game,
    mode: m ? m.name : t.mode, players: t.players, length });
}

async function refresh() {
  let tables = [];
  try {
    tables = await (await fetch("/api/tables")).json();
  } catch (e) {
    return;
  }
  const list = clear($("#tables"));
  if (!tables.length) list.append(h("li", {}, _("no tables yet: create one below")));
  for (const t of tables) {
    const seats = h("ul", { class: "lobby-seats" });
    for (const s of t.seats) {
      const state = SEAT_STATES[s.replaced ? "left" : s.state] || s.state;
      // a finished table's people are named alone (the server still says "playing")
      const text = s.bot ? _("{name} (bot)", { name: s.name })
        : s.name ? (t.status === "over" ? s.name : `${s.name} (${state})`) : state;
      seats.append(h("li", {}, _("seat {n}: {name}", { n: seatShown(s.seat), name: text })));
    }
    const actions = h("p", { class: "actions" });
    if (t.status !== "over" && t.seats.some((s) => s.state === "open")) {
      actions.append(h("a", { href: `/table/${t.id}`, class: "button" }, _("take a seat")), " ");
    }
    // a finished game is seen again in the replay viewer; a game on, watched
    actions.append(t.status === "over"
      ? h("a", { href: `/table/${t.id}/replay`, class: "button" }, _("see the game again"))
      : h("a", { href: `/table/${t.id}#watch`, class: "button" }, _("watch")));
    list.append(h("li", { class: "lobby-table" },
      h("h3", {}, _("table {id}: {what}", { id: t.id, what: tableWords(t) })),
      h("p", {}, [STATES[t.status] || t.status,
        t.clock ? `${clockWords(t.clock)} (${timeoutWords(t)})` : _("no clock"), t.delay
        ? _("{n} watching ({delay} s delay)", { n: t.spectators, delay: t.delay })
        : _("{n} watching", { n: t.spectators })].join(" · ")),
      seats, actions));
  }
}

/** A button that copies an invite link (the clipboard where the page may use it, else
 * the text selected and copied), and says so. */
function copyButton(input, seat) {
  const button = h("button", { type: "button", class: "small copy",
    "aria-label": _("copy the invite link for seat {n}", { n: seatShown(seat) }) }, _("copy"));
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (e) {
      input.select();
      document.execCommand("copy");
    }
    button.textContent = _("copied");
    button.setAttribute("aria-label", _("copied the invite link for seat {n}", { n: seatShown(seat) }));
  });
  return button;
}

async function create(e) {
  e.preventDefault();
  const name = $("#name").value.trim();
  store.setItem("xactika-name", name);
  const players = Number($("#players").value);
  const seats = [];
  for (let s = 0; s < players; s += 1) seats.push($(`#seat-${s}`).value);
  const request = { game: $("#game").value, mode: $("#mode").value, players,
    rounds: Number($("#rounds").value), clock: clockText(), name,
    on_timeout: $("#on-timeout").value, level: $("#level").value,
    delay: Number($("#delay").value), tutorial: $("#tutorial").checked, seats };
  for (const input of document.querySelectorAll("#options [data-option]")) {
    if (input.value.trim()) request[input.dataset.option] = input.value.trim();
  }
  const rated = document.querySelector("#rated")?.checked; // a signed-in person's (--site)
  const answer = await fetch(rated ? "/api/rated" : "/api/tables", { method: "POST",
    headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  const body = await answer.json();
  const out = clear($("#created"));
  if (body.error) { out.append(h("p", { class: "error" }, body.error)); return; }
  const id = body.table.id;
  const invites = Object.entries(body.invites);
  if (!invites.length) { location.assign(`/table/${id}#watch`); return; }
  const [mySeat, myToken] = invites[0];
  out.append(h("p", {}, _("table {id} is ready. You sit at seat {seat}.", { id, seat: seatShown(mySeat) }) + " ",
    h("a", { href: `/table/${id}#seat=${myToken}`, class: "button", id: "go-to-table" }, _("go to the table"))));
  if (invites.length > 1) {
    out.append(h("p", {}, _("Private invite links (one a person; whoever opens one takes that seat):")));
    const list = h("ul", {});
    for (const [seat, token] of invites.slice(1)) {
      const link = `${location.origin}/table/${id}#seat=${token}`;
      const input = h("input", { readonly: "", value: link, "aria-label": _("invite link for seat {n}", { n: seatShown(seat) }), class: "invite" });
      list.append(h("li", {}, _("seat {n}:", { n: seatShown(seat) }) + " ", input, " ", copyButton(input, seat)));
    }
    out.append(list);
  }
  refresh();
}

$("#name").value = store.getItem("xactika-name") || "";
// seats' tokens are kept by their table's page alone (table.js); an older page's go
for (const key of Object.keys(store)) if (key.startsWith("xactika-seat-")) store.removeItem(key);
$("#game").addEventListener("change", gameChanged);
$("#players").addEventListener("change", seatRows);
$("#create").addEventListener("submit", create);

async function start() {
  try {
    games = await (await fetch("/api/games")).json();
  } catch (e) {
    games = [];
  }
  const select = clear($("#game"));
  for (const g of games) select.append(h("option", { value: g.name }, g.title));
  gameChanged();
  refresh();
  setInterval(refresh, 3000);
}

start();
