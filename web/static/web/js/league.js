// A league (GET /api/v1/leagues/{id}): members, invite link, today's board for a game and the all-time board.
// Leave (POST .../leave) for members, a new invite code and Delete (with a second click to confirm) for the owner.

import { api, el, get, post } from "./api.js";
import { allTimeTable, dailyTable } from "./boards.js";

const box = document.getElementById("league");
const id = box.dataset.league;
const me = document.body.dataset.user;
const message = document.getElementById("message");
const daily = document.getElementById("daily-board");
const allTime = document.getElementById("alltime-board");
const allResults = document.getElementById("all-results");  // the day's board, or every result (assisted marked)
const inviteBox = document.getElementById("invite");
const inviteLink = document.getElementById("invite-link");
const copyButton = document.getElementById("copy-invite");
const regenerate = document.getElementById("regenerate");
const leave = document.getElementById("leave");
const remove = document.getElementById("delete");

function say(text, error = false) {
  message.textContent = text;
  message.classList.toggle("error", error);
}

/** The whole page says "not found" when the API does (not a member, or the league is gone). */
function notFound() {
  document.title = "League not found · Daily Patience";
  box.replaceChildren(
    el("h1", { text: "League not found" }),
    el("p", { class: "message error", text: "This league does not exist, or you are not one of its members." }),
    el("p", {}, el("a", { class: "button", href: "/leagues", text: "My leagues" })));
  box.dataset.ready = "true";
}

function showInvite(code) {
  inviteLink.value = new URL(`/leagues/join/${encodeURIComponent(code)}`, window.location.origin).href;
  document.getElementById("invite-code").textContent = code;
  inviteBox.hidden = false;
}

/** A player's name linking its profile; a guest is "Guest" (its internal name means nothing to anyone). */
function playerName(name, guest) {
  return guest ? el("span", { class: "guest", text: "Guest" }) : el("a", { href: `/players/${encodeURIComponent(name)}`, text: name });
}

function showLeague(league) {
  document.title = `${league.name} · Daily Patience`;
  document.getElementById("league-name").textContent = league.name;
  const meta = document.getElementById("league-meta");
  meta.className = "league-meta";
  const ownerGuest = league.roster.some((m) => m.owner && m.guest);
  meta.replaceChildren(`Owner `, playerName(league.owner, ownerGuest),
    ` · ${league.members} member${league.members === 1 ? "" : "s"} · since ${league.created_at.slice(0, 10)}`);
  showInvite(league.invite_code);
  document.getElementById("members").replaceChildren(...league.roster.map((m) =>
    el("li", { class: m.player === me ? "me" : "" },
      playerName(m.player, m.guest),
      m.owner ? el("span", { class: "badge", text: "owner" }) : null,
      el("span", { class: "small", text: ` joined ${m.joined_at.slice(0, 10)}` }))));
  const owner = league.owner === me;
  document.getElementById("regenerate-box").hidden = !owner;
  remove.hidden = !owner;
  leave.hidden = owner;
}

/** The unassisted board is empty: say whether members finished it with assisted games (never "nobody
 * finished" while somebody did). */
async function noneUnassisted() {
  const every = await get(`leagues/${id}/boards/${box.dataset.date}/${box.dataset.game}?limit=1&board=all`);
  if (!every.total) return "No member has finished this deal yet.";
  const who = every.total === 1 ? "1 member finished it" : `${every.total} members finished it`;
  return `No member has an unassisted result yet: ${who} with a hint or a look taken back. Tick "With assisted games" to see ${every.total === 1 ? "it" : "them"}.`;
}

async function loadDaily() {
  if (!daily) return;
  try {
    const all = Boolean(allResults && allResults.checked);
    const board = await get(`leagues/${id}/boards/${box.dataset.date}/${box.dataset.game}?limit=200`
      + (all ? "&board=all" : ""));
    const kind = all ? "a ranked" : "an unassisted ranked";
    const summary = el("p", { class: "summary",
      text: `${board.total} member${board.total === 1 ? "" : "s"} with ${kind} result today.` });
    daily.replaceChildren(summary, board.entries.length ? dailyTable(board.entries, me)
      : el("p", { class: "empty", text: all ? "No member has finished this deal yet." : await noneUnassisted() }));
  } catch (exc) {
    daily.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  daily.dataset.ready = "true";
}

if (allResults) allResults.addEventListener("change", () => { daily.dataset.ready = "false"; loadDaily(); });

async function loadAllTime() {
  try {
    const board = await get(`leagues/${id}/boards/all-time?limit=200`);
    allTime.replaceChildren(
      el("p", { class: "summary", text: `Unassisted ranked results since ${board.since}, by wins, then total score. `
        + "Played counts those games only: a game with a hint, or with a look at a hidden card taken back, is left out." }),
      allTimeTable(board.entries, me));
  } catch (exc) {
    allTime.replaceChildren(el("p", { class: "message error", text: exc.message }));
  }
  allTime.dataset.ready = "true";
}

async function load() {
  let league;
  try {
    league = await get(`leagues/${id}`);
  } catch (exc) {
    if (exc.status === 404) return notFound();
    say(exc.message, true);
    box.dataset.ready = "true";
    return;
  }
  showLeague(league);
  await Promise.all([loadDaily(), loadAllTime()]);
  box.dataset.ready = "true";
}

/** A button that acts on its second click: the first asks for confirmation, and it resets after a while. */
function confirmed(button, question, action) {
  const label = button.textContent;
  let timer = null;
  button.addEventListener("click", async () => {
    if (!button.dataset.confirm) {
      button.dataset.confirm = "true";
      button.textContent = question;
      timer = setTimeout(() => { delete button.dataset.confirm; button.textContent = label; }, 6000);
      return;
    }
    clearTimeout(timer);
    delete button.dataset.confirm;
    button.textContent = label;
    button.disabled = true;
    try {
      await action();
    } catch (exc) {
      if (exc.status === 404) return notFound();
      say(exc.message, true);
    }
    button.disabled = false;
  });
}

copyButton.addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(inviteLink.value);
  } catch {
    inviteLink.select();
    document.execCommand("copy");
  }
  copyButton.textContent = "Copied";
  setTimeout(() => { copyButton.textContent = "Copy"; }, 2000);
});
inviteLink.addEventListener("focus", () => inviteLink.select());

confirmed(regenerate, "Really replace the code?", async () => {
  const league = await post(`leagues/${id}/invite-code`);
  showInvite(league.invite_code);
  say("A new invite code: the old one no longer works.");
});

confirmed(leave, "Really leave?", async () => {
  await post(`leagues/${id}/leave`);
  window.location.assign("/leagues");
});

confirmed(remove, "Really delete it for everybody?", async () => {
  await api("DELETE", `leagues/${id}`);
  window.location.assign("/leagues");
});

load();
