// A seat's token at a table's page: where it is kept (issue 40: only that page reads it).

import { _ } from "./ui.js";

/** The question before an invite link replaces the seat this page holds. */
export function REPLACE_SEAT() {
  return _("This page holds your seat at this table already. Take the invite link's seat instead?");
}

/** The token this page plays with: the invite link's (``#seat=``), or the one this page
 * kept, asking first when both differ. A token is kept in this page's own history entry
 * (``history.state``) and nowhere else: another page of the site (the replay viewer, which
 * shows uploaded files, included) cannot read an entry's state, as it could read
 * localStorage or sessionStorage; it survives a reload and is dropped at the game's end.
 * Tokens an older page kept in localStorage are taken over once and removed. */
export function seatToken(number, invited) {
  const store = window.localStorage;
  const old = `xactika-seat-${number}`;
  const kept = (history.state && history.state.seat) || store.getItem(old) || null;
  for (const key of Object.keys(store)) if (key.startsWith("xactika-seat-")) store.removeItem(key);
  if (!invited) return kept;
  if (kept && kept !== invited && !window.confirm(REPLACE_SEAT())) return kept;
  return invited;
}

/** Keep ``t`` (null: none) in this page's history entry; the address bar loses the
 * ``seat=`` (its query, ``#watch`` and the rest stay), so sharing the address shares the
 * table, never the seat. */
export function keepToken(t) {
  const rest = new URLSearchParams(location.hash.slice(1));
  rest.delete("seat");
  const hash = rest.toString().replace(/=(&|$)/g, "$1"); // "#watch", not "#watch="
  history.replaceState(t ? { seat: t } : null, "",
    location.pathname + location.search + (hash ? `#${hash}` : ""));
}
