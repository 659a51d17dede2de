// Your turn while the tab is hidden: the title says so and a short tone sounds (made
// with WebAudio, unless muted; the switch is remembered). Back in view, the title is the
// page's again.
import { _, $ } from "./ui.js";

const store = window.localStorage;
const MUTE = "xactika-mute";
let audio = null;
let title = document.title;

export function alertTurn() {
  if (!document.hidden) return;
  if (!document.title.startsWith("▶")) title = document.title;
  document.title = "▶ " + _("your turn") + " · " + title;
  window.xactikaAlerts = (window.xactikaAlerts || 0) + 1; // the tests read these counts
  if (store.getItem(MUTE) === "1") return;
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.35);
    window.xactikaSounds = (window.xactikaSounds || 0) + 1;
  } catch (e) {
    // no sound where the browser has none; the title still says it
  }
}

/** The mute switch: its remembered state, kept when it changes. */
export function muteSwitch(selector) {
  const box = $(selector);
  box.checked = store.getItem(MUTE) === "1";
  box.addEventListener("change", () => store.setItem(MUTE, box.checked ? "1" : "0"));
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && document.title.startsWith("▶")) document.title = title;
});
