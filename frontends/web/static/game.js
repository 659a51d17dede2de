// The table as one seat (or a spectator) sees it, folded from the player protocol's
// lines (spec/PLAYER.md, spec/WEB.md). No rule is decided here: what may be played is
// the server's `go` line; this only remembers what was shown.

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

const DIX_SUITS = "SHDC";
const DIX_RANKS = "23456789TJQKA";

/** A hand in the game's order: Dix by suit then rank (the joker last); Xactika as dealt. */
function sortHand(game, hand) {
  if (game !== "dix") return hand;
  const key = (c) => (c === "JK" ? 99 : DIX_SUITS.indexOf(c.slice(-1)) * 20
    + DIX_RANKS.indexOf(c.slice(0, -1)));
  return [...hand].sort((a, b) => key(a) - key(b));
}

export class Game {
  constructor() {
    this.reset(-1);
    this.names = [];
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
  }

  get game() {
    return this.config ? this.config.game : "";
  }

  get hasBids() {
    return !!this.config && this.config.game === "xactika" && this.config.mode === "bid";
  }

  /** The seat to act now, as far as the public events say (null between rounds). */
  toAct() {
    if (!this.config || this.over) return null;
    const n = this.players;
    const placed = this.bids.filter((b) => b !== null).length;
    if (this.hasBids && placed < n) return (this.dealer + 1 + placed) % n;
    if (this.trick.length === n) return null;
    if (this.trick.length) return (this.trick[this.trick.length - 1][0] + 1) % n;
    if (this.lastWinner !== null) return this.lastWinner;
    return this.game === "dix" ? this.dealer : (this.dealer + 1) % n;
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
      this.hand = this.seat >= 0 ? sortHand(this.game, list(hands[this.seat])) : [];
      // every hand is dealt alike; a spectator, who sees none, knows the game's size
      const dealt = this.hand.length || (this.game === "dix"
        ? (this.config.mode === "nodraw" ? 17 : 13) : 8);
      this.sizes = hands.map(() => dealt);
      this.bids = Array(this.players).fill(null);
      this.taken = Array(this.players).fill(0);
      this.trick = [];
      this.call = null;
      this.lastWinner = null;
      this.lastTrick = null;
      this.turned = f.turned && f.turned !== "-" ? f.turned : null;
      this.stock = this.game === "dix" && this.config.mode === "draw" ? list(f.aside).length : null;
    } else if (kind === "bid") {
      this.bids[Number(f.seat)] = Number(f.bid);
    } else if (kind === "lead" || kind === "play") {
      const seat = Number(f.seat);
      if (kind === "lead") {
        this.trick = [];
        this.call = f.call || null;
        this.lastTrick = null;
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
      this.lastWinner = winner;
      this.lastTrick = { plays: this.trick, call: this.call, winner, why: "",
        number: Number(f.trick) };
      this.trick = [];
    } else if (kind === "draw") {
      const seat = Number(f.seat);
      this.sizes[seat] += 1;
      if (this.stock !== null) this.stock -= 1;
      if (seat === this.seat && f.card !== "?") {
        this.hand = sortHand(this.game, [...this.hand, f.card]);
      }
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
    const low = this.config && this.config.mode === "lose";
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

  label(seat) {
    const name = this.names[seat];
    const own = seat === this.seat ? " (you)" : "";
    return name ? `seat ${seat}: ${name}${own}` : `seat ${seat}${own}`;
  }
}
