// The replay viewer: lays out the JSON the server made (already redacted for the chosen
// seat) and steps through it. Text goes into the page through textContent only, never
// as markup, so a name from a record is always shown as text. The address names the
// position (?file= or ?upload=, &seat=, &e= the 1-based event), so a reload shows it.
import { cardSvg, cardLabel, callSvg, callWords } from "./cards.js";
import { _, ngettext } from "./ui.js";

const $ = (id) => document.getElementById(id);
const STORE = "xactika-upload:";

const st = { data: null, pos: 0, source: null, seat: "all" };

function node(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined && text !== null) n.textContent = String(text);
  if (cls) n.className = cls;
  return n;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

// --------------------------------------------------------------------------- loading

function params() {
  const q = new URLSearchParams(location.search);
  return { file: q.get("file"), upload: q.get("upload"), seat: q.get("seat") || "all",
    e: Number.parseInt(q.get("e") || "1", 10) };
}

async function fetchRecord(source, seat) {
  const q = seat === "all" ? "" : `seat=${encodeURIComponent(seat)}`;
  let response;
  if (source.file !== undefined) {
    const sep = q ? "&" : "";
    response = await fetch(`/replay/api/record?file=${encodeURIComponent(source.file)}${sep}${q}`);
  } else {
    const body = sessionStorage.getItem(STORE + source.upload);
    if (body === null) {
      throw new Error(_("the uploaded file {name} is no longer in this tab: upload it again", { name: source.upload }));
    }
    const name = `name=${encodeURIComponent(source.upload)}`;
    response = await fetch(`/replay/api/upload?${name}${q ? "&" : ""}${q}`, {
      method: "POST", body, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  let data;
  try {
    data = await response.json();
  } catch (err) {
    throw new Error(_("the server answered {status} without a record", { status: response.status }));
  }
  if (!response.ok) throw new Error(data.error || _("the server answered {status}", { status: response.status }));
  return data;
}

async function open(source, seat, pos) {
  try {
    const data = await fetchRecord(source, seat);
    st.data = data;
    st.source = source;
    st.seat = seat;
    st.pos = Math.min(Math.max(0, pos), data.events.length - 1);
    showError("");
    setupSeats();
    if ($("folder")) $("folder").open = false;  // the record, not the list, on a phone
    $("viewer").hidden = false;
    show();
  } catch (err) {
    showError(err.message);
  }
}

function setUrl() {
  const q = new URLSearchParams();
  if (st.source.file !== undefined) q.set("file", st.source.file);
  else q.set("upload", st.source.upload);
  if (st.seat !== "all") q.set("seat", st.seat);
  q.set("e", String(st.pos + 1));
  const table = new URLSearchParams(location.search).get("table"); // the way back
  if (table) q.set("table", table);
  history.replaceState(null, "", `${location.pathname}?${q.toString()}`);
}

// --------------------------------------------------------------------------- moving

// where a move goes, or undefined with the terminal viewer's words for why not
function moveTo(pos, why) {
  if (!st.data) return;
  if (pos === undefined || pos < 0 || pos >= st.data.events.length) {
    $("message").textContent = why;
    return;
  }
  st.pos = pos;
  show();
}

const after = (list) => list.find((i) => i > st.pos);
const before = (list) => list.filter((i) => i < st.pos).pop();

const moves = {
  next: () => moveTo(st.pos + 1, _("at the last event")),
  prev: () => moveTo(st.pos - 1, _("at the first event")),
  first: () => moveTo(0),
  last: () => moveTo(st.data.events.length - 1),
  nextTrick: () => moveTo(after(st.data.tricks), _("no trick after this one")),
  prevTrick: () => moveTo(before(st.data.tricks), _("no trick before this one")),
  nextRound: () => moveTo(after(st.data.rounds), _("this is the last round")),
  prevRound: () => moveTo(before(st.data.rounds), _("this is the first round")),
};

function nextView() {
  const n = st.data.players;
  const seat = st.seat === "all" ? "0" : Number(st.seat) + 1 >= n ? "all" : String(Number(st.seat) + 1);
  open(st.source, seat, st.pos);
}

function onKey(event) {
  if (!st.data || event.altKey || event.ctrlKey || event.metaKey) return;
  const tag = event.target && event.target.tagName;
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
  const keys = {
    ArrowRight: event.shiftKey ? moves.nextTrick : moves.next,
    ArrowLeft: event.shiftKey ? moves.prevTrick : moves.prev,
    ArrowDown: moves.nextRound,
    ArrowUp: moves.prevRound,
    Home: moves.first,
    End: moves.last,
    v: nextView,
  };
  const act = keys[event.key];
  if (act) {
    event.preventDefault();
    act();
  }
}

// --------------------------------------------------------------------------- drawing

function setupSeats() {
  const sel = $("seat");
  sel.replaceChildren(node("option", _("everyone (omniscient)")));
  sel.firstChild.value = "all";
  st.data.labels.forEach((label, s) => {
    const o = node("option", label);
    o.value = String(s);
    sel.append(o);
  });
  sel.value = st.seat;
}

function cards(list, label) {
  const row = node("ul", null, "cards");
  row.setAttribute("aria-label", label);
  for (const c of list) {
    const li = node("li");
    li.append(cardSvg(c));
    row.append(li);
  }
  return row;
}

function drawVerdict() {
  const v = st.data.audit;
  const box = $("verdict");
  box.className = `verdict ${v.good ? "good" : "bad"}`;
  box.replaceChildren(node("strong", _("audit: {summary}", { summary: v.summary })));
  const facts = node("ul");
  for (const fact of [v.chain, v.commitment, v.signature]) facts.append(node("li", fact));
  for (const p of v.problems) facts.append(node("li", p, "problem"));
  if (v.more_problems) facts.append(node("li", _("... and {n} more problems", { n: v.more_problems })));
  box.append(facts);
}

function drawBoard(ev) {
  const board = $("board");
  board.replaceChildren();
  const d = st.data;
  if (ev.turned) {
    const t = node("div", null, "turned");
    t.append(node("span", _("turned up:") + " "), cardSvg(ev.turned, {}));
    board.append(t);
  }
  if (ev.bids || (ev.taken && !ev.progress)) {  // Dix's progress tells the tricks taken
    const table = node("table", null, "bids");
    const head = node("tr");
    head.append(node("td", ""));  // the corner: no header of its own
    d.labels.forEach((l) => head.append(node("th", l, "name")));
    table.append(head);
    if (ev.bids) {
      const tr = node("tr");
      tr.append(node("th", _("bid")));
      ev.bids.forEach((b) => tr.append(node("td", b === null ? "-" : b)));
      table.append(tr);
    }
    if (ev.taken) {
      const tr = node("tr");
      tr.append(node("th", _("taken")));
      ev.taken.forEach((b) => tr.append(node("td", b)));
      table.append(tr);
    }
    board.append(table);
  }
  if (ev.progress) board.append(node("pre", ev.progress.join("\n"), "progress"));
  if (ev.trick) {
    const t = ev.trick;
    const box = node("div", null, "trick");
    const title = node("p", t.call ? _("{trick}: called {call}", { trick: _("trick {n}", { n: t.number }), call: callWords(t.call) || t.call }) + " "
      : _("trick {n}", { n: t.number }));
    if (t.call) {
      title.append(callSvg(t.call));
    }
    box.append(title);
    const row = node("ul", null, "cards");
    row.setAttribute("aria-label", _("trick {n}", { n: t.number }));
    for (const [seat, card] of t.plays) {
      const li = node("li", null, seat === t.winner ? "winner" : "");
      li.append(cardSvg(card));
      const mark = seat === t.winner ? " (" + (t.won ? _("won") : _("winning")) + ")" : "";
      li.append(node("span", `${d.labels[seat]}${mark}`, "who"));
      li.setAttribute("aria-label", `${d.labels[seat]}: ${cardLabel(card)}${mark}`);
      row.append(li);
    }
    box.append(row);
    board.append(box);
  }
}

function drawHands(ev) {
  const box = $("hands");
  box.replaceChildren();
  const d = st.data;
  for (const h of ev.hands) {
    const div = node("div", null, "hand");
    div.dataset.seat = String(h.seat);
    const label = d.labels[h.seat];
    if (h.cards === null) {
      div.append(node("h3", ngettext("{who}: {n} card (hidden)", "{who}: {n} cards (hidden)", h.count,
        { who: label, n: h.count })));
    } else {
      div.append(node("h3", _("{who}'s hand", { who: label })));
      div.append(h.cards.length ? cards(h.cards, _("{who}'s hand", { who: label })) : node("p", _("(no cards)")));
    }
    box.append(div);
  }
}

function drawScores(ev) {
  const d = st.data;
  const rows = d.scored.slice(0, ev.scored);
  const box = $("scores");
  if (!rows.length) {
    box.replaceChildren(node("p", _("no round has been scored yet")));
    return;
  }
  const table = node("table");
  const head = node("tr");
  head.append(node("th", _("round")));
  d.labels.forEach((l) => head.append(node("th", l, "name")));
  table.append(head);
  for (const r of rows) {
    const tr = node("tr");
    tr.append(node("th", r.round));
    r.points.forEach((p, s) => {
      const bid = r.bids ? `${r.bids[s]}/` : "";
      tr.append(node("td", `${bid}${r.tricks[s]} ${p >= 0 ? "+" : ""}${p}`));
    });
    table.append(tr);
  }
  const total = node("tr", null, "total");
  total.append(node("th", _("total")));
  rows[rows.length - 1].totals.forEach((t) => total.append(node("td", t)));
  table.append(total);
  const key = d.has_bids ? _("bid/tricks points") : _("tricks points");
  box.replaceChildren(table, node("p", _("(each cell: {key})", { key }), "dim"));
}

function show() {
  const d = st.data;
  const ev = d.events[st.pos];
  $("title").textContent = _("{name}: {game}, {mode}, {players} players", { name: d.name, game: d.title, mode: d.mode_name, players: d.players });
  $("pos").textContent = _("event {n} of {total}", { n: st.pos + 1, total: d.events.length });
  $("message").textContent = "";
  $("where").textContent = ev.where;
  $("line").textContent = ev.line;
  const told = $("told");
  told.replaceChildren();
  if (ev.told) told.append(node("p", ev.told, "said"));
  for (const s of ev.said) told.append(node("p", s, "why"));
  if (ev.think) told.append(node("p", ev.think, "think"));
  $("analysis").hidden = !ev.analysis;
  $("analysis").textContent = ev.analysis ? _("analysis: {line}", { line: ev.analysis }) : "";
  drawBoard(ev);
  drawHands(ev);
  drawScores(ev);
  $("standings").hidden = !ev.standings;
  $("standings").textContent = ev.standings || "";
  let note = "";
  if (st.pos === d.events.length - 1 && d.problem) note = _("the record stops following the rules here: {problem}", { problem: d.problem });
  else if (st.pos === d.events.length - 1 && !d.finished) note = _("the record ends here: the game is unfinished");
  else if (d.analysis_problem) note = d.analysis_problem;
  else if (st.pos === 0 && d.think_problem) note = d.think_problem;
  $("note").hidden = !note;
  $("note").textContent = note;
  drawVerdict();
  $("first").disabled = $("prev").disabled = st.pos === 0;
  $("last").disabled = $("next").disabled = st.pos === d.events.length - 1;
  setUrl();
}

// --------------------------------------------------------------------------- start

async function onUpload() {
  const file = $("upload").files[0];
  if (!file) return;
  $("upload-name").textContent = file.name;
  const limit = Number(document.body.dataset.maxUpload || "0");
  if (limit && file.size > limit) {
    showError(_("{name} is larger than {limit} bytes: the viewer reads records up to that size",
                { name: file.name, limit }));
    return;
  }
  const text = await file.text();
  try {
    sessionStorage.setItem(STORE + file.name, text);
  } catch (err) {
    showError(_("the file does not fit in this tab's storage: it cannot be kept for a reload"));
    return;
  }
  open({ upload: file.name }, "all", 0);
}

function start() {
  $("upload").addEventListener("change", onUpload);
  $("seat").addEventListener("change", () => {
    open(st.source, $("seat").value, st.pos);
    $("seat").blur();  // the arrow keys step again, not change the view
  });
  const buttons = { first: moves.first, prev: moves.prev, next: moves.next, last: moves.last,
    "prev-trick": moves.prevTrick, "next-trick": moves.nextTrick,
    "prev-round": moves.prevRound, "next-round": moves.nextRound };
  for (const [id, act] of Object.entries(buttons)) $(id).addEventListener("click", () => act());
  document.addEventListener("keydown", onKey);
  const p = params();
  const pos = Number.isFinite(p.e) ? p.e - 1 : 0;
  if (p.file) open({ file: p.file }, p.seat, pos);
  else if (p.upload) open({ upload: p.upload }, p.seat, pos);
}

start();
