// The table page: a seat (or a spectator) over the WebSocket, speaking the player
// protocol (spec/WEB.md). Every text from outside is set as textContent, never as markup.
import { alertTurn, muteSwitch } from "./alert.js";
import { callSvg, callWords, cardLabel, cardSvg, setFace } from "./cards.js";
import { Game } from "./game.js";
import { Middle } from "./middle.js";
import { renderScores } from "./scores.js";
import { keepToken, REPLACE_SEAT, seatToken } from "./seattoken.js";
import { _, h, $, clear, ngettext, paceMenu, rulesDialog, seatShown } from "./ui.js";

const root = $("#table");
const number = Number(root.dataset.number);
const params = new URLSearchParams(location.hash.slice(1));
const game = new Game();
const middle = new Middle(game, () => render());
window.xactikaMiddle = middle; // what the middle holds (the tests read it)
const store = window.localStorage;
let token = seatToken(number, params.get("seat"));
let watching = params.has("watch") && !params.get("seat");
let name = params.get("name") || store.getItem("xactika-name") || "";
let socket = null;
let retry = 0;
let over = false;
let info = null; // the lobby's public line about this table
let pendingLead = null; // a card chosen to lead, waiting for its call
let digits = "";
let digitTimer = null;
let turnSince = performance.now();
let turnSeat = null;
let replaced = false; // this seat's clock ran out: a bot plays it until we take it back
let elsewhere = ""; // "open": the seat is live in another page; "moved": it moved there
let busyTries = 0; // "already connected" answers taken for an old page still closing
const BUSY_TRIES = 2;
let warned = new Set(); // the warnings given for the current go (20 s, 5 s)
const WARNINGS = [20, 5]; // seconds left at which a person is warned, as in the terminal
const log = [];
const LOG_KEEP = 600; // table talk's lines: every move of a long round and more
let logNoted = 0; // lines noted since the list was last cleared
let logDrawn = 0; // of those, drawn (the list only grows, so it keeps its scroll)
const frames = [];
window.xactikaFrames = frames; // what the tests check for hidden cards
window.xactikaGame = game; // what the page knows (the tests read it; nothing secret)
window.xactikaTimes = []; // click to the trick updated, milliseconds
let clickAt = null;

keepToken(token);
window.addEventListener("hashchange", () => { // an invite link pasted on this very page
  const invited = new URLSearchParams(location.hash.slice(1)).get("seat");
  if (!invited || invited === token || (token && !window.confirm(REPLACE_SEAT()))) {
    keepToken(token);
    return;
  }
  keepToken(invited);
  location.reload();
});

// --------------------------------------------------------------------------- connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // ?table= is for a proxy in front of several processes (spec/WEB.md): the server ignores
  // it; ?lang= is the page's own language, so that the narration speaks it whatever the
  // handshake's Accept-Language says (a browser need not send the page's)
  const lang = encodeURIComponent(document.documentElement.lang || "");
  socket = new WebSocket(`${scheme}://${location.host}/ws?table=${number}&lang=${lang}`);
  socket.addEventListener("open", () => {
    retry = 0;
    if (token) send(`seat ${token}`);
    else send(`watch ${number}${name ? ` name=${safeName(name)}` : ""}`);
    setStatus(_("connected"));
  });
  socket.addEventListener("message", (message) => {
    frames.push(message.data);
    for (const line of message.data.split("\n")) if (line) receive(line);
    if (/^newgame /m.test(message.data)) middle.settle(); // the game so far, at once
    render();
  });
  socket.addEventListener("close", () => {
    socket = null;
    if (over || replaced || elsewhere) { render(); return; }
    retry += 1;
    setStatus(_("connection lost: reconnecting..."));
    setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(retry, 5)));
  });
}

function send(line) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(line);
}

function safeName(text) {
  return text.trim().split(/\s+/).join("-").slice(0, 32) || "player";
}

function receive(line) {
  const words = line.split(" ");
  switch (words[0]) {
    case "seated":
      game.seat = Number(words[2].split("=")[1]);
      elsewhere = "";
      busyTries = 0;
      if (location.hash) keepToken(token); // the address bar: the table, never the seat
      break;
    case "watching":
      watching = true;
      break;
    case "hello":
      send(`hello 1 name=${safeName(name || "player")} kind=human`);
      break;
    case "isready":
      send("readyok");
      break;
    case "newgame":
      game.reset(Number(words[1].split("=")[1]));
      log.length = 0;
      logNoted = 0;
      logDrawn = -1; // cleared at the next drawing
      break;
    case "event":
      event(words);
      break;
    case "go":
      game.ask(words);
      if (!watching) alertTurn();
      game.dim = game.dimNext || "";
      game.dimNext = "";
      break;
    case "say":
      say(words[1], words.slice(2));
      break;
    case "info":
      infoLine(words.slice(1).join(" "));
      break;
    case "chat":
      chat(words[1], words.slice(2).join(" "));
      break;
    case "quit":
      over = true;
      keepToken(null); // the game is over: the token is kept no more (this page's rematch
      break; //          button still has it)
    case "error":
      error(words.slice(1).join(" "));
      break;
    default:
      break;
  }
}

function event(words) {
  const kind = game.event(words);
  if (kind === "trick-won") middle.trickWon(game.lastTrick);
  if (kind === "round-scored") middle.roundScored(game.rounds[game.rounds.length - 1], []);
  if (kind === "game-started") {
    middle.reset();
    setFace(game.facts ? game.facts.cards : "");
    $("#keys-calls").hidden = !(game.facts && game.facts.calls);
  }
  const f = Object.fromEntries(words.slice(3).map((w) => w.split("=")));
  const who = game.label(Number(f.seat));
  if (kind === "bid") note(_("{who} bids {bid}", { who, bid: f.bid }));
  if (kind === "lead" && f.call && f.call !== "-") {
    note(_("{who} leads {card}, calling {call}", { who, card: cardLabel(f.card), call: callWords(f.call) }));
  } else if (kind === "lead") {
    note(_("{who} leads {card}", { who, card: cardLabel(f.card) }));
  } else if (kind === "play") {
    note(_("{who} plays {card}", { who, card: cardLabel(f.card) }));
  }
  if (["lead", "play", "bid"].includes(kind) && Number(f.seat) === game.seat && clickAt !== null) {
    const since = clickAt; // measured once the page shows it: the next frame after render
    clickAt = null;
    requestAnimationFrame(() => window.xactikaTimes.push(performance.now() - since));
  }
  if (kind === "lead" || kind === "play" || kind === "bid") game.go = null;
  if (kind === "deal") note(_("round {n}: {who} deals", { n: Number(f.round), who: game.label(Number(f.dealer)) }));
  if (kind === "game-over") { over = true; keepToken(null); }
}

function say(kind, words) {
  const text = words.join(" ");
  if (kind === "names") {
    game.names = text.split(",");
  } else if (kind === "table") {
    game.table(Object.fromEntries(words.filter((w) => w.includes("=")).map((w) => w.split("="))));
  } else if (kind === "why-won") {
    const rest = words.filter((w) => !/^(trick|winner)=/.test(w)).join(" ");
    if (game.lastTrick) game.lastTrick.why = rest;
    note(rest, "why");
  } else if (kind === "round") {
    note(text, "round");
    middle.roundSaid(text);
  } else if (kind === "coach") {
    note(text, "coach");
    game.coach = text;
  } else if (kind === "dim") {
    game.dimNext = text;
  } else if (kind === "note") {
    note(text, "coach");
  } else if (kind === "chat-refused") {
    chat("", _("(not sent: wait a moment)"));
  } else if (kind === "result") { // the record's outcome: a forfeited seat never wins
    const seats = (w) => (w.split("=")[1] === "-" ? [] : w.split("=")[1].split(",").map(Number));
    game.outcome = { winners: seats(words[0]), forfeited: seats(words[1]),
      text: words.slice(2).join(" ") };
    if (game.over) game.over.winners = game.outcome.winners;
  }
}

function infoLine(text) {
  // the server's notes for people: a clock ran out and a bot stands in, someone is back
  note(text, "info");
  chat("", text);
  loadInfo().then(render); // a stand-in's bot mark, the banks
}

/** ``move`` the seat to this page (the other page is told and closed) or ``leave``. */
async function seatAction(action) {
  const answer = await fetch(`/api/seat?table=${number}`, { method: "POST",
    headers: { "content-type": "application/json" }, body: JSON.stringify({ token, action }) });
  const body = await answer.json();
  if (body.error) { setStatus(body.error); return false; }
  return true;
}

async function moveHere() {
  setStatus(_("moving your seat to this page..."));
  if (!(await seatAction("move"))) return;
  elsewhere = "";
  busyTries = BUSY_TRIES; // the seat is free now: a refusal means someone else took it
  connect();
}

async function leaveTable() {
  const button = $("#leave");
  if (!button.dataset.sure) { // a second click, so that one slip does not leave
    button.dataset.sure = "1";
    button.textContent = _("really leave? a bot plays your seat");
    return;
  }
  if (game.config && !over && !(await seatAction("leave"))) return;
  keepToken(null);
  location.assign("/");
}

function takeBack() {
  replaced = false;
  setStatus(_("taking your seat back..."));
  connect();
}

function error(text) {
  if (/^replaced/.test(text)) { // the server keeps the seat for its token: no retry now
    replaced = true;
    game.go = null; // the stand-in answers it now
    note(_("your clock ran out: a bot plays your seat until you take it back"), "error");
    return;
  }
  if (/already connected/.test(text)) {
    if (busyTries < BUSY_TRIES) { busyTries += 1; return; } // a reloaded page's old socket
    elsewhere = "open"; // another page holds the seat: say so, offer to move it, no retry
    setStatus(_("this seat is open in another page or tab"));
    return;
  }
  if (/^moved/.test(text)) {
    elsewhere = "moved";
    game.go = null;
    note(_("your seat moved to another page"), "error");
    return;
  }
  if (/unknown token|is over|forfeited/.test(text)) {
    over = /is over/.test(text);
    if (!over) token = null;
    keepToken(null);
  }
  setStatus(_("server: {said}", { said: text }));
  note(_("server: {said}", { said: text }), "error");
}

function note(text, kind) {
  log.push([text, kind || ""]);
  logNoted += 1;
  if (log.length > LOG_KEEP) log.shift();
}

function chat(who, text) {
  const list = $("#chat-list");
  const item = h("li", {}, who ? h("b", {}, `${who}: `) : "", text);
  list.append(item);
  while (list.children.length > 100) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

function setStatus(text) {
  $("#status").textContent = text;
}

// --------------------------------------------------------------------------- moves

function play(card, call) {
  if (!game.go) return;
  clickAt = performance.now();
  pendingLead = null;
  send(call ? `play ${card} ${call}` : `play ${card}`);
  game.go = null;
  render();
}

function chooseCard(card) {
  if (!game.playable(card)) return;
  if (game.go.kind === "lead") {
    const calls = game.callsOf(card);
    if (calls.length === 1 && calls[0] === "") { play(card); return; }
    if (calls.length === 0) { play(card); return; }
    pendingLead = card;
    render();
    const first = $("#controls button");
    if (first) first.focus();
    return;
  }
  play(card);
}

function bid(n) {
  if (!game.go || game.go.kind !== "bid" || !game.go.options.includes(String(n))) return;
  clickAt = performance.now();
  send(`bid ${n}`);
  game.go = null;
  render();
}

function position(n) {
  if (!game.go) return;
  if (game.go.kind === "bid") { bid(n); return; }
  if (pendingLead) {
    const calls = game.callsOf(pendingLead);
    if (n >= 1 && n <= calls.length) play(pendingLead, calls[n - 1]);
    return;
  }
  const card = game.hand[n - 1];
  if (card) chooseCard(card);
}

function flushDigits() {
  clearTimeout(digitTimer);
  if (digits) position(Number(digits));
  digits = "";
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (/^[0-9]$/.test(e.key)) {
    e.preventDefault();
    digits += e.key;
    const max = game.go && game.go.kind === "bid" ? Math.max(...game.go.options.map(Number))
      : pendingLead ? 4 : game.hand.length;
    clearTimeout(digitTimer);
    if (Number(digits) * 10 > max || digits === "0") flushDigits(); // nothing can follow
    else digitTimer = setTimeout(flushDigits, 800);
  } else if (e.key === "Enter" && digits) {
    e.preventDefault();
    flushDigits();
  } else if (e.key === "Escape") {
    pendingLead = null;
    digits = "";
    render();
  } else if (pendingLead && /^[bcos]$/i.test(e.key)) {
    const token2 = { b: "ba", c: "cu", o: "co", s: "st" }[e.key.toLowerCase()];
    const call = game.callsOf(pendingLead).find((c) => c.endsWith(token2));
    if (call) play(pendingLead, call);
  } else if (e.key === "l" || e.key === "L") {
    middle.toggleReview();
  } else if (e.key === "r" || e.key === "?") {
    openRules();
  }
});

// --------------------------------------------------------------------------- drawing

function render() {
  $("#leave").hidden = watching || !token || over || !game.config;
  renderSeats();
  middle.paint(); // first: what it still holds decides the info line and the end
  renderInfo();
  renderControls();
  renderHand();
  renderLog();
  renderScores($("#scores"), game);
  renderEnd();
  const mode = game.modeFacts ? game.modeFacts.name : game.config ? game.config.mode : "";
  // a game to a target (Dix's) has no number of rounds to count to
  const round = !game.config ? "" : game.config.target
    ? _("round {n}, to {target} points", { n: game.round || 1, target: game.config.target })
    : _("round {n} of {total}", { n: game.round || 1, total: game.config.rounds });
  const banner = game.config ? [game.title, mode, round].join(" · ") : _("table {number}", { number });
  $("#banner").textContent = watching ? banner + " · " + _("watching") : banner;
}

function renderWaiting(box) {
  // before the deal: who sits, who is awaited (the lobby's public line on this table)
  const missing = [];
  for (const s of info.seats) {
    const mine = s.seat === game.seat;
    const who = mine ? _("{name} (you)", { name: name || _("you") })
      : s.bot ? _("{name} (bot)", { name: s.name })
      : s.state === "playing" ? s.name || _("a person") : _("open: waiting for a person");
    if (!mine && !s.bot && s.state !== "playing") missing.push(_("seat {n}", { n: seatShown(s.seat) }));
    box.append(h("li", { class: s.seat === game.seat ? "seat mine" : "seat" },
      h("span", { class: "seat-name" }, _("seat {n}", { n: seatShown(s.seat) })), h("span", {}, who)));
  }
  if (!socket) {
    setStatus(token ? _("you are invited: your name, then sit down") : _("take a seat or watch"));
  } else if (!watching && missing.length) {
    setStatus(_("waiting for {seats}: send them their invite link", { seats: missing.join(", ") }));
  }
}

function renderSeats() {
  const box = clear($("#seats"));
  if (!game.config && info) { renderWaiting(box); return; }
  const acting = game.toAct();
  if (acting !== turnSeat) { // a new turn: the banks as the server keeps them
    turnSeat = acting;
    turnSince = performance.now();
    if (info && info.clock) loadInfo().then(tickClocks);
  }
  for (let seat = 0; seat < game.players; seat += 1) {
    const parts = [];
    if (game.hasBids) parts.push(_("bid {n}", { n: game.bids[seat] ?? "–" }));
    parts.push(_("took {n}", { n: game.taken[seat] ?? 0 }));
    parts.push(_("total {n}", { n: game.totals[seat] ?? 0 }));
    const size = game.sizes[seat] ?? 0;
    if (!game.hand.length || seat !== game.seat) parts.push(ngettext("{n} card", "{n} cards", size, { n: size }));
    const classes = ["seat"];
    if (seat === acting) classes.push("turn");
    if (seat === game.seat) classes.push("mine");
    const named = seat === game.seat ? _("seat {n}: {name} (you)", { n: seatShown(seat), name: game.names[seat] || "" })
      : _("seat {n}: {name}", { n: seatShown(seat), name: game.names[seat] || "" });
    const li = h("li", { class: classes.join(" "), "data-seat": seat },
      // the marks first, as badges, where a narrow seat cuts its name short (whole on hover);
      // each a word of its own when read out ("bot dealer seat 1", not "botdealerseat 1")
      h("span", { class: "seat-name", title: named },
        game.bots.has(seat) ? h("span", { class: "badge", title: _("a bot plays this seat") }, _("bot")) : "",
        game.bots.has(seat) ? " " : "",
        seat === game.dealer ? h("span", { class: "badge dealer", title: _("the dealer") }, _("dealer")) : "",
        seat === game.dealer ? " " : "",
        named),
      // each part whole, the line broken between parts where the box is narrow
      h("span", { class: "seat-score" }, ...parts.flatMap((part, i) =>
        [i ? " · " : "", h("span", { class: "part" }, part)])),
      h("span", { class: "clock", "data-seat": seat }, ""));
    if (seat === acting) li.setAttribute("aria-current", "true"); // the seat to act, read out
    box.append(li);
  }
  tickClocks();
}

function clockText(seconds) {
  const whole = Math.ceil(Math.max(0, seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function tickClocks() {
  // every person's time bank (info.seats[].bank, from the server), the running one
  // counting down; this seat's from its own 'go time=' (spec/WEB.md)
  const timed = info && info.clock && !over && game.config;
  for (const node of document.querySelectorAll(".clock")) {
    const seat = Number(node.dataset.seat);
    const s = timed ? info.seats[seat] : null;
    const mine = seat === game.seat && game.go && game.go.time !== null && !over;
    node.classList.remove("low", "running", "out");
    if (!mine && (!s || s.bank === null || s.bank === undefined)) {
      node.textContent = "";
      continue;
    }
    if (!mine && s.replaced) {
      node.textContent = _("out of time: a bot plays");
      node.classList.add("out");
      continue;
    }
    let left = mine ? (game.go.time - (performance.now() - game.go.at)) / 1000 : s.bank / 1000;
    if (mine || seat === turnSeat) {
      node.classList.add("running");
      if (!mine) left -= (performance.now() - turnSince) / 1000;
      else warn(left);
    }
    node.textContent = _("clock {time}", { time: clockText(left) });
    node.setAttribute("aria-label", _("{who}: {time} left on the clock", { who: game.label(seat), time: clockText(left) }));
    node.classList.toggle("low", left <= 20);
  }
}

function warn(left) {
  // the terminal's warnings at 20 and 5 seconds left, once a turn
  if (game.go.at !== warn.at) { warn.at = game.go.at; warned = new Set(); }
  for (const at of WARNINGS) {
    if (game.go.time / 1000 > at && left <= at && left > 0 && !warned.has(at)) {
      warned.add(at);
      note(ngettext("{n} second left on your clock", "{n} seconds left on your clock", at, { n: at }), "error");
      setStatus(_("hurry: {n} seconds left on your clock", { n: Math.ceil(left) }));
      renderLog();
    }
  }
}

function renderInfo() {
  // what a table always shows: the trump (and the card turned up) and the stock
  const box = clear($("#table-info"));
  if (!game.config || (game.over && middle.caughtUp)) return; // until the standings show
  if (game.trump) box.append(h("span", {}, _("trump: {suit}", { suit: game.trump })));
  if (game.turned) {
    box.append(h("span", { class: "turned" }, _("turned up:") + " ", cardSvg(game.turned, { width: 22 }),
      ` ${cardLabel(game.turned)}`));
  }
  if (game.stock !== null) box.append(h("span", {}, ngettext("stock: {n} card", "stock: {n} cards", game.stock, { n: game.stock })));
  if (game.hasBids && game.bids.some((b) => b === null)) { // the bid total while bidding
    const placed = game.bids.filter((b) => b !== null);
    const total = placed.reduce((a, b) => a + b, 0);
    box.append(h("span", { class: "bid-total" },
      ngettext("bids: {total} for {tricks} trick ({placed} of {players} bid)",
        "bids: {total} for {tricks} tricks ({placed} of {players} bid)", game.dealt,
        { total, tricks: game.dealt, placed: placed.length, players: game.players })));
  }
}

function renderControls() {
  const box = clear($("#controls"));
  const go = game.go;
  if (elsewhere && !over) {
    setStatus(elsewhere === "moved" ? _("your seat moved to another page")
      : _("this seat is open in another page or tab"));
    const here = h("button", { type: "button", id: "move-here" },
      elsewhere === "moved" ? _("take my seat back to this page") : _("move my seat to this page"));
    here.addEventListener("click", moveHere);
    box.append(here);
    return;
  }
  if (replaced && !over) {
    setStatus(_("your clock ran out: a bot plays your seat until you take it back"));
    const back = h("button", { type: "button", id: "take-back" }, _("take my seat back"));
    back.addEventListener("click", takeBack);
    box.append(back);
    return;
  }
  if (watching && !over) {
    setStatus(_("watching: only public cards are shown"));
    return;
  }
  if (over) { // a seat's page or a watcher's; the last round's summary, then the standings
    setStatus(middle.summing && middle.caughtUp
      ? _("that was the last round: the final standings are below") : _("the game is over"));
    if (!game.config) { // a page opened after the end: the socket says only that it is over
      box.append(h("a", { class: "button", id: "replay-over", href: `/table/${number}/replay` },
        _("see the game again")), " ",
      h("a", { class: "button", href: `/api/tables/${number}/record`, download: "" },
        _("download the record")));
    }
    return;
  }
  if (!go) {
    const acting = game.toAct();
    if (!game.config) return; // renderWaiting said it
    setStatus(acting === null ? _("waiting") : acting === game.seat ? _("your turn")
      : _("waiting for {who}", { who: game.label(acting) }));
    return;
  }
  if (go.kind === "bid") {
    setStatus(_("your bid: how many tricks will you take?"));
    const max = game.hand.length;
    const placed = game.bids.reduce((a, b) => a + (b ?? 0), 0);
    for (let n = 0; n <= max; n += 1) {
      const ok = go.options.includes(String(n));
      const why = ok ? _("bid {n}", { n }) : _("you deal, and the bids may not total {max}: the others bid {placed}", { max, placed });
      const b = h("button", { type: "button", class: "bid", "aria-label": ok ? `bid ${n}` : `bid ${n}: not allowed, ${why}`,
        title: why }, String(n));
      if (ok) b.addEventListener("click", () => bid(n));
      else { b.disabled = true; b.classList.add("forbidden"); }
      box.append(b);
    }
    if (go.options.length <= max) box.append(h("p", { class: "hint" }, _("{n} is not allowed: the dealer may not make the bids total {max}", { n: max - placed, max })));
    return;
  }
  if (pendingLead) {
    setStatus(_("lead {card}: which call?", { card: cardLabel(pendingLead) }));
    game.callsOf(pendingLead).forEach((call, i) => {
      const b = h("button", { type: "button", class: "call-choice", "aria-label": _("call {call} ({n})", { call: callWords(call), n: i + 1 }) },
        `${i + 1}`, callSvg(call), ` ${callWords(call)}`);
      b.addEventListener("click", () => play(pendingLead, call));
      box.append(b);
    });
    const cancel = h("button", { type: "button", class: "cancel" }, _("cancel (Esc)"));
    cancel.addEventListener("click", () => { pendingLead = null; render(); });
    box.append(cancel);
    return;
  }
  const calls = go.options.some((o) => o.includes(":"));
  setStatus(go.kind === "lead" ? (calls ? _("your lead: choose a card, then its call")
    : _("your lead: choose a card")) : _("your play: choose a raised card"));
}

function renderSorts() {
  // the game's orders for a hand (its facts); the choice is remembered
  const sorts = game.facts ? game.facts.sorts : [];
  $("#sort-box").hidden = watching || sorts.length < 2 || !game.hand.length;
  const select = $("#sort");
  if (select.options.length !== sorts.length) {
    clear(select);
    const named = game.facts.sortNames || {};
    for (const s of sorts) select.append(h("option", { value: s }, named[s] || s));
  }
  if (sorts.includes(game.sort)) select.value = game.sort;
}

function renderHand() {
  renderSorts();
  const box = clear($("#hand"));
  if (watching || game.seat < 0) {
    $("#hand-title").textContent = "";
    $("#hand-title").hidden = true;
    return;
  }
  $("#hand-title").textContent = game.hand.length ? _("your hand") : "";
  $("#hand-title").hidden = !game.hand.length; // no empty heading
  game.hand.forEach((card, i) => {
    const ok = game.playable(card);
    const asked = game.go && game.go.kind !== "bid";
    const reason = !asked || ok ? "" : game.dim || _("you may not play this card now");
    const label = reason ? _("{n}: {card} (not playable: {why})", { n: i + 1, card: cardLabel(card), why: reason })
      : `${i + 1}: ${cardLabel(card)}`;
    // named by its content (the position shown, then the words): a name that holds
    // what is seen on the card, as speech input needs; the drawing itself is not read
    const n = String(i + 1);
    const face = cardSvg(card);
    face.setAttribute("aria-hidden", "true");
    const b = h("button", { type: "button", class: `card${ok ? " playable" : ""}${asked && !ok ? " dimmed" : ""}${pendingLead === card ? " chosen" : ""}`,
      title: reason || cardLabel(card), "data-card": card }, face,
    h("span", { class: "pos" }, n), h("span", { class: "sr" }, label.startsWith(n) ? label.slice(n.length) : " " + label));
    if (asked && !ok) b.setAttribute("aria-disabled", "true");
    b.addEventListener("click", () => {
      if (ok) chooseCard(card);
      else if (reason) setStatus(reason);
    });
    box.append(b);
  });
}

function renderLog() {
  // every line, scrollable over the whole round; the newest in view unless the
  // person scrolled up to read
  const box = $("#log-list");
  const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  if (logDrawn < 0) { clear(box); logDrawn = 0; }
  const fresh = Math.min(logNoted - logDrawn, log.length);
  for (const [text, kind] of log.slice(log.length - fresh)) {
    box.append(h("li", { class: kind }, text));
  }
  logDrawn = logNoted;
  while (box.children.length > LOG_KEEP) box.firstChild.remove();
  if (atEnd) box.scrollTop = box.scrollHeight;
  const coach = $("#coach");
  coach.textContent = game.coach && game.round === 1 ? game.coach : "";
  coach.hidden = !coach.textContent;
}

function renderEnd() {
  const box = $("#end");
  // the standings once the middle has shown every trick, never before the last one
  if (!game.over || !middle.caughtUp) { box.hidden = true; return; }
  box.hidden = false;
  const list = clear($("#standings"));
  // the outcome, as the server's game-over said it: winners, totals (forfeits go here too)
  for (const [rank, seat] of game.standings()) {
    const won = game.over.winners.includes(seat);
    const lost = game.outcome && game.outcome.forfeited.includes(seat);
    const classes = [won ? "winner" : "", seat === game.seat ? "mine" : ""].join(" ").trim();
    // the rank and the name, no seat number by it ("1. Platz 2" reads as two places)
    list.append(h("li", { class: classes }, _("{rank}. {who}: {total}", { rank, who: game.short(seat), total: game.over.totals[seat] }),
      won ? h("span", { class: "mark" }, " ★ " + _("winner")) : "",
      lost ? h("span", { class: "mark" }, " — " + _("forfeited")) : "",
      seat === game.seat ? h("span", { class: "mark" }, won ? " " + _("(you won)") : " ← " + _("you")) : ""));
  }
  if (game.outcome && game.outcome.text) list.append(h("li", { class: "outcome" }, game.outcome.text));
  $("#record").href = `/api/tables/${number}/record`;
  $("#replay").href = `/table/${number}/replay`;
  $("#rematch").hidden = watching || !token;
}

async function rematch() {
  const answer = await fetch(`/api/rematch?table=${number}`, { method: "POST",
    headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
  const body = await answer.json();
  if (body.error) { setStatus(body.error); return; }
  location.assign(`/table/${body.table}#seat=${body.token}`);
}

async function openRules() {
  const c = game.config || info || {};
  await rulesDialog(c);
}

async function loadInfo() {
  try {
    const tables = await (await fetch("/api/tables")).json();
    info = tables.find((t) => t.id === number) || null;
    if (info) game.bots = new Set(info.seats.filter((s) => s.bot || s.replaced).map((s) => s.seat));
  } catch (e) {
    info = null;
  }
}

async function join() {
  const form = $("#join");
  form.hidden = false;
  $("#join-name").value = name;
  if (token) $("#join-take").textContent = _("sit down");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    name = $("#join-name").value.trim();
    store.setItem("xactika-name", name);
    if (token) { form.hidden = true; connect(); return; } // an invite link: the seat is known
    const answer = await fetch(`/api/tables/${number}/take`, { method: "POST",
      headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
    const body = await answer.json();
    if (body.error) { $("#join-error").textContent = body.error; return; }
    token = body.token;
    keepToken(token);
    form.hidden = true;
    connect();
  });
  $("#watch").addEventListener("click", () => {
    form.hidden = true;
    watching = true;
    history.replaceState(null, "", "#watch");
    connect();
  });
}

$("#chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("#chat-input");
  const text = input.value.trim().replace(/\s+/g, " ");
  if (text) send(`chat ${text}`);
  input.value = "";
});
$("#rules-button").addEventListener("click", openRules);
$("#last-trick").addEventListener("click", () => middle.toggleReview());
const paceKey = "xactika-pace";
middle.pace = Math.min(10000, Math.max(0, Number(store.getItem(paceKey)))) || 1200;
paceMenu($("#pace"), middle.pace);
$("#pace").addEventListener("change", () => {
  store.setItem(paceKey, $("#pace").value);
  middle.pace = Number($("#pace").value);
});
$("#rematch").addEventListener("click", rematch);
$("#leave").addEventListener("click", leaveTable);
game.sort = store.getItem("xactika-sort") || "";
$("#sort").addEventListener("change", () => {
  game.sort = $("#sort").value;
  store.setItem("xactika-sort", game.sort);
  game.sortHand();
  render();
});
muteSwitch("#mute");
setInterval(tickClocks, 250);
setInterval(() => { if (!game.config && !over) loadInfo().then(render); }, 2000);
setInterval(() => { if (game.config && !over && info && info.clock) loadInfo(); }, 3000);

async function loadGames() {
  try {
    game.games = await (await fetch("/api/games")).json();
  } catch (e) {
    game.games = [];
  }
}

// the clock's setting: not worth waiting for before sitting down; a finished table with no
// seat of ours (its token went with the game's end) is watched: its end, its replay
loadInfo().then(() => {
  if (!token && !watching && !socket && info && info.status === "over") {
    watching = true;
    $("#join").hidden = true;
    connect();
  }
  render();
});
if (params.get("name")) store.setItem("xactika-name", name);
loadGames().then(() => {
  if ((token && name) || watching) connect();
  else join();
  render();
});
