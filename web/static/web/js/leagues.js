// My leagues (GET /api/v1/leagues), and the forms to create one (POST /leagues) and join one (POST /leagues/join).

import { el, get, post } from "./api.js";

const list = document.getElementById("leagues");
const message = document.getElementById("message");
const createForm = document.getElementById("create-league");
const joinForm = document.getElementById("join-league");
const me = document.body.dataset.user;

function say(text, error = false) {
  message.textContent = text;
  message.classList.toggle("error", error);
}

async function load() {
  try {
    const leagues = await get("leagues");
    if (!leagues.length) {
      list.replaceChildren(el("p", { class: "empty", text: "You are in no league yet: create one, or join one with an invite." }));
    } else {
      list.replaceChildren(el("table", { class: "leaderboard leagues-table" },
        el("thead", {}, el("tr", {},
          el("th", { text: "League" }), el("th", { text: "Owner" }), el("th", { class: "num", text: "Members" }))),
        el("tbody", {}, leagues.map((l) => el("tr", { dataset: { league: String(l.id) } },
          el("td", {}, el("a", { href: `/leagues/${l.id}`, text: l.name })),
          el("td", { text: l.owner === me ? `${l.owner} (you)` : l.owner }),
          el("td", { class: "num", text: String(l.members) }))))));
    }
  } catch (exc) {
    list.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  list.dataset.ready = "true";
}

/** The code alone, from a code or a whole invite link (…/leagues/join/{code}). */
export function inviteCode(text) {
  const match = text.match(/\/leagues\/join\/([^/?#\s]+)/);
  return (match ? decodeURIComponent(match[1]) : text).trim();
}

async function submit(form, action) {
  const button = form.querySelector("button");
  button.disabled = true;
  say("");
  try {
    const league = await action();
    window.location.assign(`/leagues/${league.id}`);
  } catch (exc) {
    const field = exc.details && Object.values(exc.details)[0];
    say(Array.isArray(field) ? `${exc.message} ${field.join(" ")}` : exc.message, true);
    button.disabled = false;
  }
}

createForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const name = createForm.elements.name.value.trim();
  submit(createForm, () => post("leagues", { name }));
});

joinForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const code = inviteCode(joinForm.elements.invite_code.value);
  submit(joinForm, () => post("leagues/join", { invite_code: code }));
});

load();
