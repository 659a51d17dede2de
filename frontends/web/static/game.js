// The table as one seat (or a spectator) sees it, as the server's `say table` lines say
// it (spec/WEB.md): nothing is folded here from the player protocol's events, and no rule
// is decided: what may be played is the server's `go` line.
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

  /** What the server says a table shows (`say table`): turn, sizes, stock, trump, the
   * round, dealer, bids, tricks taken, totals, the trick, and the hand when it changed.
   * The page draws these; it folds no event into them (spec/WEB.md). */
  table(f) {
    this.turn = f.turn === undefined || f.turn === "-" ? null : Number(f.turn);
    this.move = f.move && f.move !== "-" ? f.move : null;
    if (f.sizes) this.sizes = ints(f.sizes);
    if (f.round) this.round = Number(f.round);
    if (f.dealer) this.dealer = Number(f.dealer);
    this.bids = f.bids ? list(f.bids).map((b) => (b === "-" ? null : Number(b))) : Array(this.players).fill(null);
    this.taken = f.taken ? ints(f.taken) : Array(this.players).fill(0);
    if (f.totals) this.totals = ints(f.totals);
    this.trick = list(f.trick).map((play) => {
      const i = play.indexOf(":");
      return [Number(play.slice(0, i)), play.slice(i + 1)];
    });
    this.call = f.call || null;
    this.tricksDone = this.taken.reduce((a, b) => a + b, 0); // tricks won this round
    if (!this.tricksDone && !this.trick.length && this.sizes.length) this.dealt = Math.max(...this.sizes);
    this.stock = f.stock && f.stock !== "-" ? Number(f.stock) : null;
    this.trump = f.trump && f.trump !== "-" ? f.trump.replace(/-/g, " ") : null;
    const orders = Object.entries(f).filter(([key]) => key.startsWith("hand-"));
    if (orders.length) { // said when it changed; kept until then
      this.orders = {};
      for (const [key, value] of orders) this.orders[key.slice(5)] = list(value);
    }
    this.sortHand();
  }

  /** The hand in the chosen order (the server's), or its first. */
  sortHand() {
    const sorts = Object.keys(this.orders);
    if (!sorts.length) return;
    this.hand = [...this.orders[sorts.includes(this.sort) ? this.sort : sorts[0]]];
  }

  /** Note one event line (its kind returned): the game's settings, the card turned up,
   * a finished trick for the middle to hold, a round's scores for the sheet, the end.
   * What the table shows comes from `say table`, never folded from these. */
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
      this.lastWinner = null;
      this.turned = f.turned && f.turned !== "-" ? f.turned : null;
    } else if (kind === "trick-won") { // the trick as the table last showed it, complete
      const winner = Number(f.seat);
      this.lastWinner = winner;
      this.lastTrick = { plays: this.trick, call: this.call, winner, why: "",
        number: Number(f.trick) };
    } else if (kind === "round-scored") {
      this.rounds.push({ round: Number(f.round), bids: f.bids === "-" ? null : ints(f.bids),
        tricks: ints(f.tricks), points: ints(f.points), totals: ints(f.totals) });
    } else if (kind === "game-over") {
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
