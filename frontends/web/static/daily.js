// The daily deal's page: a deal's button takes its seat (POST /api/daily/play) and opens
// its table; the share line is copied. Everything else is the server's page.
import { _, $ } from "./ui.js";

const list = document.querySelector(".daily-deals");

async function play(deal) {
  const answer = await fetch("/api/daily/play", { method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ deal, day: list.dataset.day }) });
  const body = await answer.json();
  if (body.error) { $("#play-error").textContent = body.error; return; }
  location.assign(`/table/${body.table}?daily=${body.day}#seat=${body.token}`);
}

if (list) {
  for (const button of list.querySelectorAll("button[data-deal]")) {
    button.addEventListener("click", () => play(Number(button.dataset.deal)));
  }
}

const copy = document.getElementById("copy-share");
if (copy) {
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("#share").textContent);
      copy.textContent = _("copied");
    } catch (e) {
      copy.textContent = _("select the line to copy it");
    }
  });
}
