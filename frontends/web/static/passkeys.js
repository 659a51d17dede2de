// Passkeys on the accounts' pages (frontends/web/passkeypages.py): "Add a passkey" on
// one's own page, "Log in with a passkey" on the login page. The server offers the
// buttons only on HTTPS or localhost; a browser without WebAuthn hides them too.
import { _, $ } from "./ui.js";

const bytes = (text) => Uint8Array.from(
  atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function post(path, body) {
  const answer = await fetch(path, { method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? "{}" : JSON.stringify(body) });
  const found = await answer.json();
  if (!answer.ok) throw new Error(found.error || answer.statusText);
  return found;
}

function answer(credential) {
  const r = credential.response, out = {};
  for (const key of ["clientDataJSON", "attestationObject", "authenticatorData",
    "signature", "userHandle"]) {
    if (r[key]) out[key] = text(r[key]);
  }
  return { id: credential.id, rawId: text(credential.rawId), type: credential.type,
    response: out };
}

async function register() {
  const options = await post("/api/passkeys/register/options");
  options.challenge = bytes(options.challenge);
  options.user.id = bytes(options.user.id);
  for (const c of options.excludeCredentials || []) c.id = bytes(c.id);
  const made = await navigator.credentials.create({ publicKey: options });
  const done = await post("/api/passkeys/register", answer(made));
  return _("passkey added ({n} on this account)", { n: done.passkeys });
}

async function login() {
  const options = await post("/api/passkeys/login/options");
  options.challenge = bytes(options.challenge);
  for (const c of options.allowCredentials || []) c.id = bytes(c.id);
  const got = await navigator.credentials.get({ publicKey: options });
  const done = await post("/api/passkeys/login", answer(got));
  location.assign(done.next);
  return "";
}

for (const button of document.querySelectorAll("button[data-passkey]")) {
  if (!window.PublicKeyCredential) { button.closest(".passkey").hidden = true; continue; }
  button.addEventListener("click", async () => {
    const said = $("#passkey-said");
    said.textContent = "";
    try {
      said.textContent = await (button.dataset.passkey === "login" ? login() : register());
    } catch (e) {
      said.textContent = e.name === "NotAllowedError" ? _("no passkey was chosen")
        : String(e.message || e);
    }
  });
}
