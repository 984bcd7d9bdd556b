// Today's page: the time left until the next day's deals, share buttons, and new deals as they become ready.

import { get } from "./api.js";
import { startCountdown } from "./countdown.js";

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
