// The middle of the table: the trick being played, every finished trick held with its
// why-line for the table's pace, and each round's summary. The page only ever shows
// later what it was sent; nothing here waits before a move goes to the server.
import { callSvg, callWords, cardSvg } from "./cards.js";
import { _, $, clear, h } from "./ui.js";

const KEYBOARD = matchMedia("(hover: hover) and (pointer: fine)");
const SUMMARY_PACES = 5; // a round's summary stays this many paces, or until "continue"
const HURRIED = 400; // ms a finished trick stays when the person is asked for a card

export class Middle {
  constructor(game, onChange) {
    this.game = game;
    this.onChange = onChange; // repaint when a held item's time is up
    this.queue = []; // [{kind: "trick"|"summary", trick|row, since}]
    this.pace = 1200; // ms a finished trick stays at least
    this.reviewing = false; // the last trick, asked for by its button or key
    this.timer = null;
    window.xactikaTricksWon = []; // "round.trick" of every trick won (the tests read it)
    window.xactikaTricksShown = []; // and of every one painted complete
  }

  /** A trick was won: hold it (with its why-line, which follows) in the queue. */
  trickWon(trick) {
    trick.round = this.game.round;
    window.xactikaTricksWon.push(`${trick.round}.${trick.number}`);
    this.queue.push({ kind: "trick", trick, since: null });
  }

  /** A round was scored: its summary follows the round's last trick. */
  roundScored(row, said) {
    this.queue.push({ kind: "summary", row, said, since: null });
  }

  /** After the game so far arrived at once (a reload, a reconnect, a late spectator):
   * none of it is played back, only a trick just finished stays. */
  settle() {
    const last = this.queue[this.queue.length - 1];
    const keep = last && last.kind === "trick" && !this.game.trick.length ? [last] : [];
    const dropped = this.queue.filter((item) => !keep.includes(item) && item.kind === "trick")
      .map((item) => `${item.trick.round}.${item.trick.number}`);
    // counted (for the tests) only where they were played live
    window.xactikaTricksWon = window.xactikaTricksWon.filter((id) => !dropped.includes(id));
    this.queue = keep;
  }

  /** A new game: nothing held. */
  reset() {
    this.queue = [];
    this.reviewing = false;
  }

  /** The round's narration ("made their bid: ...") for the summary being held. */
  roundSaid(text) {
    const last = [...this.queue].reverse().find((item) => item.kind === "summary");
    if (last) last.said.push(text);
  }

  /** Every trick won has been shown (the final standings wait for it; the last round's
   * summary may still be held, and shows with them). */
  get caughtUp() {
    return !this.queue.some((item) => item.kind === "trick");
  }

  /** A round's summary is on show; with nothing left to show after it (caughtUp), the
   * game's last, which the final standings come with. */
  get summing() {
    return this.queue.length > 0 && this.queue[0].kind === "summary";
  }

  dismiss() {
    if (this.queue.length && this.queue[0].kind === "summary") this.queue.shift();
    this.onChange();
  }

  toggleReview() {
    this.reviewing = !this.reviewing && !!this.game.lastTrick;
    this.onChange();
  }

  /** Drop what has been shown long enough; the time until the next to drop. */
  advance(now) {
    const game = this.game;
    while (this.queue.length) {
      const item = this.queue[0];
      if (item.since === null) return null; // not painted yet
      const shown = now - item.since;
      if (item.kind === "trick") {
        const next = this.queue.length > 1 || game.trick.length > 0 || !!game.over;
        // a card of ours is asked for: the trick to play to (or what waits before it)
        // comes after a brief look at the finished one, which is never skipped; so do
        // the standings, once the game is over, before the game's last trick
        const hurry = (game.go && game.go.kind !== "bid")
          || (!!game.over && this.queue.some((later, i) => i > 0 && later.kind === "trick"));
        const need = hurry ? Math.min(this.pace, HURRIED) : this.pace;
        if (shown < need) return need - shown;
        if (!next) return null; // stays until the next trick's first card
      } else {
        // a card to play to a trick begun: the trick shows, the summary goes; else it
        // stays its time in every game (to bid or to lead it moves behind the dock)
        const follow = game.go && game.go.kind !== "bid" && game.trick.length > 0;
        const wait = this.pace * SUMMARY_PACES;
        if (!follow && shown < wait) return wait - shown;
      }
      this.queue.shift();
    }
    return null;
  }

  paint() {
    const now = performance.now();
    const wait = this.advance(now);
    clearTimeout(this.timer);
    if (wait !== null) this.timer = setTimeout(this.onChange, Math.max(16, wait + 5));
    const item = this.queue[0];
    if (item && item.since === null) {
      item.since = now;
      if (wait === null) this.timer = setTimeout(this.onChange, this.pace + 5);
    }
    const box = clear($("#trick-cards"));
    const summary = $("#summary");
    const title = $("#trick-title");
    summary.hidden = true;
    box.hidden = false;
    delete box.dataset.trick;
    if (item && item.kind === "summary") {
      box.hidden = true;
      clear($("#why"));
      title.textContent = "";
      this.paintSummary(summary, item);
      return;
    }
    const game = this.game;
    let showing = null;
    if (this.reviewing && game.lastTrick) {
      showing = game.lastTrick;
      // a key named only where there is a keyboard (as the key help, style.css)
      title.textContent = KEYBOARD.matches
        ? _("the last trick ({n}): press l or the button to go back", { n: showing.number })
        : _("the last trick ({n}): its button goes back", { n: showing.number });
    } else if (item) {
      showing = item.trick;
      title.textContent = _("trick {n} of round {round}", { n: showing.number, round: showing.round });
    } else if (game.over && game.lastTrick) { // the end: the game's last trick stays
      showing = game.lastTrick;
      title.textContent = _("trick {n} of round {round}", { n: showing.number, round: showing.round });
    } else {
      title.textContent = game.trick.length ? _("trick {n}", { n: game.tricksDone + 1 }) : "";
      if (game.trick.length) showing = { plays: game.trick, call: game.call };
    }
    $("#last-trick").disabled = !game.lastTrick;
    $("#last-trick").textContent = this.reviewing ? _("back to the table") : _("last trick");
    this.paintTrick(box, showing);
  }

  paintTrick(box, showing) {
    const why = clear($("#why"));
    const game = this.game;
    if (!showing) return;
    for (const [seat, card] of showing.plays) {
      const won = showing.winner === seat;
      // the seat's number and name where there is room; on a phone its name alone
      const caption = (who) => (won ? _("{who} ✓ wins", { who }) : who);
      box.append(h("figure", { class: won ? "played won" : "played" }, cardSvg(card),
        h("figcaption", {}, h("span", { class: "wide" }, caption(game.label(seat))),
          h("span", { class: "narrow", "aria-hidden": "true" }, caption(game.short(seat))))));
    }
    if (showing.winner !== undefined) {
      box.dataset.trick = `${showing.round}.${showing.number}`;
      if (showing.plays.length === game.players && !this.reviewing) {
        const id = box.dataset.trick;
        const shown = window.xactikaTricksShown;
        if (shown[shown.length - 1] !== id) shown.push(id);
      }
    }
    const call = showing.call ? h("span", { class: "call" }, _("call:") + " ", callSvg(showing.call),
      ` ${callWords(showing.call)}`) : "";
    const reason = showing.winner !== undefined && showing.why
      ? h("span", { class: "why-text" }, showing.why) : "";
    why.append(call, reason);
  }

  paintSummary(box, item) {
    const game = this.game;
    const { row } = item;
    clear(box).hidden = false;
    // our turn, our clock running: the dock (bids, status, hand) stays on top of it
    box.classList.toggle("behind", !!game.go);
    box.append(h("h2", {}, _("round {n} is over", { n: row.round })));
    const head = h("tr", {}, h("th", {}, _("seat")));
    if (row.bids) head.append(h("th", {}, _("bid")));
    head.append(h("th", {}, _("tricks")), h("th", {}, _("points")), h("th", {}, _("total")));
    const body = h("tbody", {});
    row.points.forEach((points, seat) => {
      const made = row.bids && row.bids[seat] === row.tricks[seat];
      const tr = h("tr", { class: seat === game.seat ? "mine" : "" },
        h("th", {}, game.short(seat)));
      if (row.bids) tr.append(h("td", { class: "said-bid" }, made ? _("{bid} ✓ made", { bid: row.bids[seat] }) : `${row.bids[seat]} ✗`));
      tr.append(h("td", {}, String(row.tricks[seat])),
        h("td", {}, `${points > 0 ? "+" : ""}${points}`), h("td", {}, String(row.totals[seat])));
      body.append(tr);
    });
    box.append(h("div", { class: "sheet-box" }, h("table", { class: "sheet" }, h("thead", {}, head), body)));
    for (const text of item.said) box.append(h("p", { class: "said" }, text));
    const go = h("button", { type: "button", id: "continue" }, _("continue"));
    go.addEventListener("click", () => this.dismiss());
    box.append(go);
  }
}
