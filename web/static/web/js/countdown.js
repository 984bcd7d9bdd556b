// The time left until the next day's deals, ticking once a second.

export function startCountdown(node) {
  if (!node) return;
  const tick = () => {
    const left = Math.max(0, Date.parse(node.dataset.endsAt) - Date.now());
    if (left === 0) {
      node.textContent = "a moment: reload for the new deals";
      return;
    }
    const s = Math.floor(left / 1000);
    const pad = (n) => String(n).padStart(2, "0");
    node.textContent = `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
    setTimeout(tick, 1000 - (Date.now() % 1000));
  };
  tick();
}
