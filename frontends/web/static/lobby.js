// The lobby: the tables, their seats, names and spectators; create, sit, invite, watch.
import { $, clear, h } from "./ui.js";

const store = window.localStorage;
const LEVELS = [["open", "open seat (a person)"], ["1", "bot: beginner"], ["2", "bot: casual"],
  ["3", "bot: heuristic"], ["4", "bot: good"], ["5", "bot: strong"]];

function seatRows() {
  const players = Number($("#players").value) || 4;
  const box = clear($("#seat-kinds"));
  for (let s = 0; s < players; s += 1) {
    const select = h("select", { id: `seat-${s}`, "aria-label": `seat ${s}` });
    for (const [value, text] of LEVELS) select.append(h("option", { value }, text));
    select.value = s === 0 ? "open" : "3";
    box.append(h("label", {}, `seat ${s} `, select));
  }
}

function gameChanged() {
  const dix = $("#game").value === "dix";
  const mode = clear($("#mode"));
  const modes = dix ? [["draw", "draw"], ["nodraw", "no draw"]]
    : [["bid", "Play to Bid"], ["win", "Play to Win"], ["lose", "Play to Lose"]];
  for (const [value, text] of modes) mode.append(h("option", { value }, text));
  $("#players").value = dix ? "2" : "4";
  $("#players").disabled = dix;
  $("#rounds").value = dix ? "1" : "8";
  seatRows();
}

async function refresh() {
  let tables = [];
  try {
    tables = await (await fetch("/api/tables")).json();
  } catch (e) {
    return;
  }
  const list = clear($("#tables"));
  if (!tables.length) list.append(h("li", {}, "no tables yet: create one below"));
  for (const t of tables) {
    const seats = h("ul", { class: "lobby-seats" });
    for (const s of t.seats) {
      const text = s.bot ? `${s.name} (bot)` : s.name ? `${s.name} (${s.state})` : s.state;
      seats.append(h("li", {}, `seat ${s.seat}: ${text}`));
    }
    const actions = h("p", { class: "actions" });
    if (t.status !== "over" && t.seats.some((s) => s.state === "open")) {
      actions.append(h("a", { href: `/table/${t.id}`, class: "button" }, "take a seat"), " ");
    }
    actions.append(h("a", { href: `/table/${t.id}#watch`, class: "button" }, "watch"));
    list.append(h("li", { class: "lobby-table" },
      h("h3", {}, `table ${t.id}: ${t.game} ${t.mode}, ${t.players} players, ${t.rounds} round${t.rounds === 1 ? "" : "s"}`),
      h("p", {}, `${t.status} · ${t.clock ? `clock ${t.clock}` : "no clock"} · ${t.spectators} watching${t.delay ? ` (${t.delay} s delay)` : ""}`),
      seats, actions));
  }
}

async function create(e) {
  e.preventDefault();
  const name = $("#name").value.trim();
  store.setItem("xactika-name", name);
  const players = Number($("#players").value);
  const seats = [];
  for (let s = 0; s < players; s += 1) seats.push($(`#seat-${s}`).value);
  const request = { game: $("#game").value, mode: $("#mode").value, players,
    rounds: Number($("#rounds").value), clock: $("#clock").value.trim(), name,
    on_timeout: $("#on-timeout").value, level: $("#level").value,
    delay: Number($("#delay").value), tutorial: $("#tutorial").checked, seats };
  const answer = await fetch("/api/tables", { method: "POST",
    headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  const body = await answer.json();
  const out = clear($("#created"));
  if (body.error) { out.append(h("p", { class: "error" }, body.error)); return; }
  const id = body.table.id;
  const invites = Object.entries(body.invites);
  if (!invites.length) { location.assign(`/table/${id}#watch`); return; }
  const [mySeat, myToken] = invites[0];
  store.setItem(`xactika-seat-${id}`, myToken);
  out.append(h("p", {}, `table ${id} is ready. You sit at seat ${mySeat}. `,
    h("a", { href: `/table/${id}#seat=${myToken}`, class: "button", id: "go-to-table" }, "go to the table")));
  if (invites.length > 1) {
    out.append(h("p", {}, "Private invite links (one a person; whoever opens one takes that seat):"));
    const list = h("ul", {});
    for (const [seat, token] of invites.slice(1)) {
      const link = `${location.origin}/table/${id}#seat=${token}`;
      list.append(h("li", {}, `seat ${seat}: `, h("input", { readonly: "", value: link, "aria-label": `invite link for seat ${seat}`, class: "invite" })));
    }
    out.append(list);
  }
  refresh();
}

$("#name").value = store.getItem("xactika-name") || "";
$("#game").addEventListener("change", gameChanged);
$("#players").addEventListener("change", seatRows);
$("#create").addEventListener("submit", create);
gameChanged();
refresh();
setInterval(refresh, 3000);
