// The reminder page: with no zone stored yet, the browser's own is chosen for the player (they can change it).

const zone = document.getElementById("id_time_zone");
if (zone && !zone.querySelector("option[selected]")) {
  const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if ([...zone.options].some((option) => option.value === mine)) zone.value = mine;
}
