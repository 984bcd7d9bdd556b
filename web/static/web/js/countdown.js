// The time left until the next day's deals, ticking once a second; at zero, a link to them (the home
// page goes there by itself), never "reload".

export function startCountdown(node) {
  if (!node) return;
  const tick = () => {
    const left = Math.max(0, Date.parse(node.dataset.endsAt) - Date.now());
    if (left === 0) {
      const link = document.createElement("a");
      link.href = "/";
      link.textContent = "the new day's deals";
      node.replaceChildren("no time: here are ", link);
      node.dispatchEvent(new CustomEvent("dp:new-day", { bubbles: true }));
      return;
    }
    const s = Math.floor(left / 1000);
    const pad = (n) => String(n).padStart(2, "0");
    node.textContent = `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
    setTimeout(tick, 1000 - (Date.now() % 1000));
  };
  tick();
}
