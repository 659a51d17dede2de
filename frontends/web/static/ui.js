// Small DOM helpers shared by the pages: text is always textContent, never markup.
// And the page's words: `_("your turn")`, `ngettext("{n} card", "{n} cards", n, { n })`,
// in the page's language (<html lang>), from the same gettext catalog as the server's
// (GET /i18n/LANG.json, extracted by Babel from this file's calls; English: the ids).

const LANG = document.documentElement.lang || "en";
const CATALOG = LANG === "en" ? { messages: {}, plural: "(n != 1)" }
  : await fetch(`/i18n/${encodeURIComponent(LANG)}.json`).then((r) => r.json())
    .catch(() => ({ messages: {}, plural: "(n != 1)" }));
// the catalogs' plural rules, without eval (the page's CSP forbids it)
const PLURALS = { "(n != 1)": (n) => Number(n !== 1), "(n > 1)": (n) => Number(n > 1),
  "0": () => 0 };
const pluralIndex = PLURALS[CATALOG.plural] || PLURALS["(n != 1)"];

function fill(text, fields) {
  return fields ? text.replace(/\{(\w+)\}/g, (all, key) => (key in fields ? String(fields[key]) : all))
    : text;
}

/** A seat as a person reads it: counted from 1 (as BGA and BBO count); the server's lines
 * and the records count from 0. */
export const seatShown = (seat) => Number(seat) + 1;

/** A message in the page's language, its {fields} filled. */
export function _(message, fields) {
  const found = CATALOG.messages[message];
  return fill(typeof found === "string" ? found : message, fields);
}

/** A message in a context (a word that reads two ways in another language). */
export function pgettext(context, message, fields) {
  const found = CATALOG.messages[`${context}\u0004${message}`];
  return fill(typeof found === "string" ? found : message, fields);
}

/** The form for `n` of a message with a plural, its {fields} filled. */
export function ngettext(singular, plural, n, fields) {
  const forms = CATALOG.messages[singular];
  const text = Array.isArray(forms) ? forms[pluralIndex(n)] ?? forms[forms.length - 1]
    : n === 1 ? singular : plural;
  return fill(text, fields);
}

export function $(selector) {
  return document.querySelector(selector);
}

/** An element with attributes and children (strings become text nodes). */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) {
    if (child === null || child === undefined || child === "") continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Select `ms` in a pace menu, adding it as an option of its own where none has it (a
 * pace stored by hand or by an older page), so that the menu never shows blank. */
export function paceMenu(select, ms) {
  if (![...select.options].some((option) => Number(option.value) === ms)) {
    select.append(h("option", { value: String(ms) }, `${ms} ms`));
  }
  select.value = String(ms);
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

/** The game's rules, from the same texts as the REPL's `rules` (GET /api/rules). */
export async function rulesDialog(config) {
  const dialog = $("#rules");
  const query = new URLSearchParams({ mode: config.mode || "" });
  if (config.game) query.set("game", config.game);
  if (config.players) query.set("players", String(config.players));
  const body = await (await fetch(`/api/rules?${query}`)).json();
  const box = clear($("#rules-body"));
  if (body.error) {
    box.append(h("p", {}, body.error));
  } else {
    box.append(h("h2", {}, `${body.title}: ${body.mode}`), h("p", {}, body.banner));
    for (const [topic, text] of Object.entries(body.topics)) {
      box.append(h("h3", {}, (body.headings || {})[topic] || topic), h("p", {}, text));
    }
  }
  if (!dialog.open) dialog.showModal();
}
