// Turn alerts: when it becomes your turn while the tab is hidden, a short chime (made
// here, no sound file) and/or a notification, as the player chose in the side column.

import { $, toast } from "../dom.js";

const ALERTS = { sound: "dingo.alert.sound", notify: "dingo.alert.notify" };
const alertOn = (kind) => { try { return localStorage.getItem(ALERTS[kind]) === "1"; } catch { return false; } };
let audio = null;

/** Your turn while the tab is hidden: `title` names the game ("Your turn at Dingo"). */
export function turnAlert({ title, body, tag }) {
  if (!document.hidden) return;
  const done = [];
  if (alertOn("sound")) {
    try {
      audio = audio || new AudioContext();
      const now = audio.currentTime;
      for (const [i, freq] of [[0, 660], [1, 880]]) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, now + i * 0.16);
        gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.15);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + i * 0.16);
        osc.stop(now + i * 0.16 + 0.16);
      }
      done.push("sound");
    } catch { /* no audio here */ }
  }
  if (alertOn("notify") && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification(`Your turn at ${title}`, { body, tag });
    note.onclick = () => { window.focus(); note.close(); };
    done.push("notification");
  }
  // Kept on the page (how many, and what the last one did) so the alerts can be checked.
  if (done.length) {
    document.body.dataset.turnAlerts = String(Number(document.body.dataset.turnAlerts || 0) + 1);
    document.body.dataset.turnAlert = done.join(",");
  }
}

export function setupAlerts() {
  for (const kind of ["sound", "notify"]) {
    const box = $(`#alert-${kind}`);
    box.checked = alertOn(kind);
    box.addEventListener("change", async () => {
      let on = box.checked;
      if (on && kind === "notify") {
        if (!("Notification" in window)) on = false;
        else if (Notification.permission !== "granted") on = (await Notification.requestPermission()) === "granted";
        if (!on) toast("Notifications are blocked in this browser.", { error: true });
      }
      box.checked = on;
      try { localStorage.setItem(ALERTS[kind], on ? "1" : "0"); } catch { /* not kept */ }
    });
  }
}
