// Today's page: the time left until the next day's deals, share buttons, and new deals as they become ready.

import { get } from "./api.js";
import { startCountdown } from "./countdown.js";

// A new day: the page shows its deals by itself (those not checked yet appear as they come, below).
// Once per day's end: a browser clock ahead of the server's would otherwise reload again and again.
document.addEventListener("dp:new-day", (event) => {
  const end = event.target.dataset.endsAt;
  if (sessionStorage.getItem("dp:new-day") === end) return;
  sessionStorage.setItem("dp:new-day", end);
  setTimeout(() => location.reload(), 2000);
});
startCountdown(document.querySelector(".countdown"));

// A game's result, or the whole day (its squares): the phone's share sheet where there is one, else
// the clipboard.
const shareSheet = Boolean(navigator.share) && matchMedia("(pointer: coarse)").matches;
for (const button of document.querySelectorAll("button.share, button.share-day")) {
  const label = button.textContent;
  button.addEventListener("click", async () => {
    const text = `${button.dataset.share}\n${location.origin}/`;
    if (shareSheet) {
      try {
        await navigator.share({ text });
        return;
      } catch (exc) {
        if (exc.name === "AbortError") return;
      }
    }
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      window.prompt("Copy your result:", text);
    }
    setTimeout(() => { button.textContent = label; }, 2000);
  });
}

// While some of today's games are still being proven winnable, look again every 15 s and
// reload the page once more of them are ready.
const coming = document.getElementById("coming");
const shown = document.querySelectorAll(".challenge").length;
if (coming || !shown) {
  const poll = async () => {
    try {
      const daily = await get("daily");
      if (daily.challenges.length > shown) {
        location.reload();
        return;
      }
    } catch {
      // the next look may work
    }
    setTimeout(poll, 15_000);
  };
  setTimeout(poll, 15_000);
}
