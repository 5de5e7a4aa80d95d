"use strict";
// Setup page (PIN, new game, finish) and the corrections on the tricks page.
(() => {
  const {post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const on = (id, event, handler) => { const node = $(id); if (node) node.addEventListener(event, handler); };
  const num = (form, name) => Number(form.elements[name].value);

  on("set-pin", "submit", (event) => {
    event.preventDefault();
    post("/api/pin", {pin: event.target.elements.pin.value}).then(() => location.reload()).catch(() => {});
  });
  on("change-pin", "submit", (event) => {
    event.preventDefault();
    post("/api/pin", {pin: event.target.elements.pin.value}).then(() => toast("PIN changed")).catch(() => {});
  });
  on("logout", "click", () => post("/api/logout", {}).then(() => location.reload()).catch(() => {}));
  on("finish", "click", () => {
    if (confirm("End the game in play now? It stays in the history.")) {
      post("/api/finish", {}).then(() => location.reload()).catch(() => {});
    }
  });
  on("forget-lessons", "click", () => {
    if (confirm("Forget every card the table named? Your deck is learned again without them.")) {
      post("/api/corrections/forget", {}).then(() => location.reload()).catch(() => {});
    }
  });
  on("new-game", "submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter((v) => v);
    const body = {players, first_dealer: num(form, "first_dealer"),
      tactical: form.elements.tactical.checked, simultaneous: form.elements.simultaneous.checked};
    post("/api/game", body).then(() => { location.href = "/"; }).catch(() => {});
  });
  on("new-attacke", "submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter((v) => v);
    const body = {game: "attacke", players, first_player: num(form, "first_player"),
      persevering: form.elements.persevering.checked, concealed: form.elements.concealed.checked};
    post("/api/game", body).then(() => { location.href = "/"; }).catch(() => {});
  });
  on("new-solo", "submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const body = {game: "solo", players: [form.elements.player.value.trim()],
      joker_wild: form.elements.joker_wild.checked, match_suit: form.elements.match_suit.checked};
    post("/api/game", body).then(() => { location.href = "/"; }).catch(() => {});
  });

  // Corrections: tap a card of a trick, give the right one. Rounds and tricks are numbered from
  // 1 on the page, from 0 in the record; the page knows which reveal of the round a card is.
  const dialog = $("fix-dialog");
  let fixing = null;
  document.querySelectorAll("button.fix").forEach((button) => button.addEventListener("click", () => {
    const d = button.dataset;
    fixing = d;
    const where = `round ${Number(d.round) + 1}, trick ${Number(d.trick) + 1}`;
    $("fix-what").textContent = d.kind === "play" ? `${d.name}'s card in ${where} is ${d.card}.`
      : `The scoring card ${button.textContent} of ${where}.`;
    $("fix-number").hidden = d.kind !== "play";
    $("fix-scoring").hidden = d.kind === "play";
    const form = $("fix-form");
    form.elements.card.value = "";
    form.elements.why.value = "";
    if (d.kind !== "play") form.elements.scoring.value = d.card;
    dialog.showModal();
  }));
  on("fix-form", "submit", (event) => {
    if (event.submitter && event.submitter.value === "cancel") return;
    event.preventDefault();
    const f = event.target;
    const d = fixing;
    const why = f.elements.why.value;
    const [url, body, said] = d.kind === "play"
      ? ["/api/correct/play", {round: Number(d.round), trick: Number(d.trick), seat: Number(d.seat),
          card: Number(f.elements.card.value), why},
         `${d.name}'s card in round ${Number(d.round) + 1}, trick ${Number(d.trick) + 1} is now ${f.elements.card.value}`]
      : ["/api/correct/scoring", {round: Number(d.round), index: Number(d.index), card: f.elements.scoring.value, why},
         `the scoring card of round ${Number(d.round) + 1}, trick ${Number(d.trick) + 1} is now ${f.elements.scoring.selectedOptions[0].textContent}`];
    post(url, body).then(() => {
      dialog.close();
      sessionStorage.setItem("fixed", `Corrected: ${said}; the scores were replayed.`);
      location.hash = `r${Number(d.round) + 1}-t${Number(d.trick) + 1}`;
      location.reload();
    }).catch(() => {});
  });
  on("fix-undo", "click", () => post("/api/undo", {}).then(() => {
    sessionStorage.setItem("fixed", "The last event was taken back; the scores were replayed.");
    location.reload();
  }).catch(() => {}));
  const fixed = sessionStorage.getItem("fixed");
  if (fixed && $("fixed")) {
    sessionStorage.removeItem("fixed");
    $("fixed").textContent = fixed;
    $("fixed").hidden = false;
  }
})();
