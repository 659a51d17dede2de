// The table as one seat (or a spectator) sees it, folded from the player protocol's
// lines (spec/PLAYER.md, spec/WEB.md). No rule is decided here: what may be played is
// the server's `go` line; this only remembers what was shown.
import { _, seatShown } from "./ui.js";

export function fields(words) {
  const found = {};
  for (const word of words) {
    const i = word.indexOf("=");
    if (i > 0) found[word.slice(0, i)] = word.slice(i + 1);
  }
  return found;
}

const list = (text) => (!text || text === "-" ? [] : text.split(","));
const ints = (text) => list(text).map(Number);

export class Game {
  constructor() {
    this.reset(-1);
    this.names = [];
    this.bots = new Set(); // the seats a bot plays (the lobby's list; a stand-in too)
    this.games = []; // every game's facts, from /api/games
    this.sort = ""; // the hand's order, one of the game's sorts ("" its first)
  }

  reset(seat) {
    this.seat = seat;
    this.config = null;
    this.players = 0;
    this.round = 0;
    this.dealer = 0;
    this.hand = [];
    this.sizes = [];
    this.bids = [];
    this.taken = [];
    this.totals = [];
    this.trick = [];
    this.call = null;
    this.lastTrick = null; // {plays, call, winner, why}
    this.lastWinner = null;
    this.turned = null;
    this.stock = null;
    this.go = null;
    this.rounds = []; // round-scored rows
    this.over = null; // {totals, winners}
    this.lastSeq = 0;
    this.turn = null; // the server's `say table`: whose turn, what kind of move
    this.move = null;
    this.trump = null;
    this.orders = {}; // the hand in each of the game's orders, from the server
    this.dealt = 0; // cards each seat was dealt this round
    this.tricksDone = 0; // tricks won this round
  }

  get game() {
    return this.config ? this.config.game : "";
  }

  /** The game's facts (/api/games): title, modes, players, options, card faces. */
  get facts() {
    return this.games.find((g) => g.name === this.game) || null;
  }

  /** The mode's facts: its name, whether it bids, a hand's size. */
  get modeFacts() {
    const f = this.facts;
    return f && this.config ? f.modes.find((m) => m.id === this.config.mode) || null : null;
  }

  get hasBids() {
    const m = this.modeFacts;
    return !!m && m.bidding;
  }

  get title() {
    const f = this.facts;
    return f ? f.title : this.game;
  }

  /** The seat to act now, as the server said (null between rounds and once it moved). */
  toAct() {
    if (!this.config || this.over) return null;
    return this.turn;
  }

  /** What the server says a table shows (`say table`): turn, sizes, stock, trump, hand. */
  table(f) {
    this.turn = f.turn === undefined || f.turn === "-" ? null : Number(f.turn);
    this.move = f.move && f.move !== "-" ? f.move : null;
    if (f.sizes) this.sizes = ints(f.sizes);
    if (!this.tricksDone && !this.trick.length && this.sizes.length) this.dealt = Math.max(...this.sizes);
    this.stock = f.stock && f.stock !== "-" ? Number(f.stock) : null;
    this.trump = f.trump && f.trump !== "-" ? f.trump.replace(/-/g, " ") : null;
    this.orders = {};
    for (const [key, value] of Object.entries(f)) {
      if (key.startsWith("hand-")) this.orders[key.slice(5)] = list(value);
    }
    this.sortHand();
  }

  /** The hand in the chosen order (the server's), or its first. */
  sortHand() {
    const sorts = Object.keys(this.orders);
    if (!sorts.length) return;
    const order = this.orders[sorts.includes(this.sort) ? this.sort : sorts[0]];
    if (order.length === this.hand.length) this.hand = [...order];
  }

  /** Fold one event line; returns its kind. */
  event(words) {
    const seq = Number(words[1]);
    const kind = words[2];
    const f = fields(words.slice(3));
    this.lastSeq = seq;
    if (kind === "game-started") {
      const seat = this.seat;
      this.reset(seat);
      this.config = { game: f.game, mode: f.mode, players: Number(f.players),
        rounds: Number(f.rounds), target: f.target };
      this.players = Number(f.players);
      this.totals = Array(this.players).fill(0);
    } else if (kind === "deal") {
      this.round = Number(f.round);
      this.dealer = Number(f.dealer);
      const hands = f.hands.split("/");
      this.hand = this.seat >= 0 ? list(hands[this.seat]) : [];
      // every hand is dealt alike (the server's `say table` confirms the sizes)
      const m = this.modeFacts;
      const dealt = this.hand.length || (m ? m.hand : 0);
      this.sizes = hands.map(() => dealt);
      this.dealt = dealt;
      this.tricksDone = 0;
      this.bids = Array(this.players).fill(null);
      this.taken = Array(this.players).fill(0);
      this.trick = [];
      this.call = null;
      this.lastWinner = null;
      this.turned = f.turned && f.turned !== "-" ? f.turned : null;
    } else if (kind === "bid") {
      this.bids[Number(f.seat)] = Number(f.bid);
    } else if (kind === "lead" || kind === "play") {
      const seat = Number(f.seat);
      if (kind === "lead") {
        this.trick = [];
        this.call = f.call || null;
      }
      this.trick.push([seat, f.card]);
      this.sizes[seat] -= 1;
      if (seat === this.seat) {
        const i = this.hand.indexOf(f.card);
        if (i >= 0) this.hand.splice(i, 1);
      }
    } else if (kind === "trick-won") {
      const winner = Number(f.seat);
      this.taken[winner] += 1;
      this.tricksDone += 1;
      this.lastWinner = winner;
      this.lastTrick = { plays: this.trick, call: this.call, winner, why: "",
        number: Number(f.trick) };
      this.trick = [];
    } else if (kind === "draw") {
      const seat = Number(f.seat);
      this.sizes[seat] += 1;
      if (seat === this.seat && f.card !== "?") this.hand = [...this.hand, f.card];
    } else if (kind === "round-scored") {
      this.totals = ints(f.totals);
      this.rounds.push({ round: Number(f.round), bids: f.bids === "-" ? null : ints(f.bids),
        tricks: ints(f.tricks), points: ints(f.points), totals: ints(f.totals) });
    } else if (kind === "game-over") {
      this.totals = ints(f.totals);
      this.over = { totals: ints(f.totals), winners: ints(f.winners) };
      this.go = null;
    }
    return kind;
  }

  /** The `go` line: the legal moves, exactly as the server offered them. */
  ask(words) {
    const f = fields(words.slice(2));
    const options = list(f.options);
    this.go = { kind: words[1], options, time: f.time ? Number(f.time) : null,
      at: performance.now() };
    return this.go;
  }

  /** The calls a lead of ``card`` may make (["1ba", "3cu", ...]), from the go line. */
  callsOf(card) {
    if (!this.go || this.go.kind !== "lead") return [];
    return this.go.options.filter((o) => o.startsWith(`${card}:`)).map((o) => o.slice(card.length + 1));
  }

  playable(card) {
    if (!this.go || this.go.kind === "bid") return false;
    return this.go.options.some((o) => o === card || o.startsWith(`${card}:`));
  }

  /** Standings best first: [rank, seat], winners first, shared totals share a rank. */
  standings() {
    if (!this.over) return [];
    const { totals, winners } = this.over;
    const low = !!this.modeFacts && this.modeFacts.low_wins;
    const seats = [...totals.keys()].sort((a, b) => (winners.includes(b) - winners.includes(a))
      || (low ? totals[a] - totals[b] : totals[b] - totals[a]) || a - b);
    let rank = 0;
    let prev = null;
    return seats.map((seat, i) => {
      const key = `${totals[seat]}/${winners.includes(seat)}`;
      if (key !== prev) { rank = i + 1; prev = key; }
      return [rank, seat];
    });
  }

  /** ``seat 2: heuristic (2) · bot``, ``seat 1: Ann (you)``: how every line names a seat. */
  label(seat) {
    const name = this.names[seat];
    const n = seatShown(seat);
    return (name ? _("seat {n}: {name}", { n, name }) : _("seat {n}", { n })) + this.mark(seat);
  }

  /** The name alone with its mark, where the seat's number is in the column. */
  short(seat) {
    return (this.names[seat] || _("seat {n}", { n: seatShown(seat) })) + this.mark(seat);
  }

  mark(seat) {
    return seat === this.seat ? " " + _("(you)") : this.bots.has(seat) ? " · " + _("bot") : "";
  }
}
