// A seating of the arena watched live (/arena/watch/SET): asks the server for the frames
// it has not drawn yet (GET /api/arena/live/SET?from=N) every second, and draws the last
// one as the server made it: a spectator's view, no hand, no rule derived here. Text goes
// into the page through textContent only.
import { cardSvg, cardLabel, callWords } from "./cards.js";
import { _ } from "./ui.js";

const $ = (id) => document.getElementById(id);
const SET = $("title").dataset.set;
const POLL_MS = 1000;
const st = { rotation: null, from: 0, data: null };

function node(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined && text !== null) n.textContent = String(text);
  if (cls) n.className = cls;
  return n;
}

function drawBoard(d, ev) {
  const board = $("board");
  board.replaceChildren();
  if (ev.turned) {
    const t = node("p", null, "turned");
    t.append(node("span", _("turned up:") + " "), cardSvg(ev.turned, {}));
    board.append(t);
  }
  if (ev.bids || ev.taken) {
    const wrap = node("div", null, "wide");
    const table = node("table", null, "bids");
    const head = node("tr");
    head.append(node("td", ""));
    d.labels.forEach((l) => head.append(node("th", l, "name")));
    table.append(head);
    for (const [word, row] of [[_("bid"), ev.bids], [_("taken"), ev.taken]]) {
      if (!row) continue;
      const tr = node("tr");
      tr.append(node("th", word));
      row.forEach((b) => tr.append(node("td", b === null ? "-" : b)));
      table.append(tr);
    }
    const total = node("tr", null, "total");
    total.append(node("th", _("total")));
    const scored = d.scored.slice(0, ev.scored);
    const totals = scored.length ? scored[scored.length - 1].totals : d.labels.map(() => 0);
    totals.forEach((t) => total.append(node("td", t)));
    table.append(total);
    wrap.append(table);
    board.append(wrap);
  }
  if (ev.progress) board.append(node("pre", ev.progress.join("\n"), "progress"));
  if (ev.trick) {
    const t = ev.trick;
    const box = node("div", null, "trick");
    const name = _("trick {n}", { n: t.number });
    box.append(node("p", t.call ? _("{trick}: called {call}", { trick: name, call: callWords(t.call) || t.call }) : name));
    const row = node("ul", null, "cards");
    row.setAttribute("aria-label", name);
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

function drawFrames(d, frames) {
  const log = $("log");
  for (const ev of frames) {
    const li = node("li", ev.told);
    for (const s of ev.said) li.append(node("span", " " + s, "why"));
    log.prepend(li);
  }
  const ev = frames[frames.length - 1];
  if (!ev) return;
  $("told").textContent = [ev.told, ...ev.said].join(" ");
  drawBoard(d, ev);
  $("standings").hidden = !ev.standings;
  $("standings").textContent = ev.standings || "";
}

function finished(d) {
  $("status").textContent = _("The set is finished: its games are in the replay.");
  const list = $("replays");
  list.replaceChildren();
  d.replay.forEach((link, i) => {
    const li = node("li");
    const a = node("a", _("replay of seating {n}", { n: i + 1 }));
    a.href = link;
    li.append(a);
    list.append(li);
  });
  $("done").hidden = false;
}

async function poll() {
  let d;
  try {
    const response = await fetch(`/api/arena/live/${encodeURIComponent(SET)}?from=${st.from}`);
    d = await response.json();
    if (!response.ok) {
      $("error").textContent = d.error || _("the server answered {status}", { status: response.status });
      $("error").hidden = false;
      $("status").textContent = "";
      return;  // not on show any more: nothing to wait for
    }
  } catch (err) {
    setTimeout(poll, POLL_MS);  // the server away a moment: ask again
    return;
  }
  if (d.state === "finished") {
    finished(d);
    return;
  }
  if (d.rotation !== st.rotation) {  // a new seating: drawn from its start
    st.rotation = d.rotation;
    $("log").replaceChildren();
    if (st.from !== 0) {
      st.from = 0;
      poll();
      return;
    }
  }
  if (d.state === "waiting") {
    $("status").textContent = d.note;
  } else {
    $("status").textContent = _("seating {n} of {total}: {state}", { n: d.rotation, total: d.rotations,
      state: d.state === "over" ? _("game over") : _("playing") });
    drawFrames(d, d.frames);
    st.from = d.total;
  }
  setTimeout(poll, POLL_MS);
}

poll();
