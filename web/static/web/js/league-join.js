// An invite link for a logged-in player: Join posts the code (POST /api/v1/leagues/join), then opens the league.

import { post } from "./api.js";

const box = document.getElementById("join");
const button = document.getElementById("join-button");
const message = document.getElementById("message");

button.addEventListener("click", async () => {
  button.disabled = true;
  message.textContent = "Joining…";
  message.classList.remove("error");
  try {
    const league = await post("leagues/join", { invite_code: box.dataset.code });
    message.textContent = `You are in ${league.name}.`;
    window.location.assign(`/leagues/${league.id}`);
  } catch (exc) {
    message.textContent = exc.status === 404 ? "This invite link does not work: the code is unknown, or it was replaced by a new one. Ask for a fresh link." : exc.message;
    message.classList.add("error");
    button.disabled = false;
  }
});
box.dataset.ready = "true";
