// Small DOM helpers shared by the pages: text is always textContent, never markup.

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
      box.append(h("h3", {}, topic), h("p", {}, text));
    }
  }
  if (!dialog.open) dialog.showModal();
}
