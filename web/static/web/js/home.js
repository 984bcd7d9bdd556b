// Today's page: the time left until the next day's deals.

const countdown = document.querySelector(".countdown");

function tick() {
  const left = Math.max(0, Date.parse(countdown.dataset.endsAt) - Date.now());
  if (left === 0) {
    countdown.textContent = "a moment: reload for the new deals";
    return;
  }
  const s = Math.floor(left / 1000);
  const pad = (n) => String(n).padStart(2, "0");
  countdown.textContent = `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  setTimeout(tick, 1000 - (Date.now() % 1000));
}

if (countdown) tick();
