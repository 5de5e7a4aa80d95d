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
  on("new-game", "submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value.trim()).filter((v) => v);
    const body = {players, first_dealer: num(form, "first_dealer"),
      tactical: form.elements.tactical.checked, simultaneous: form.elements.simultaneous.checked};
    post("/api/game", body).then(() => { location.href = "/"; }).catch(() => {});
  });

  // Rounds, tricks and reveals are numbered from 1 on the page, from 0 in the record.
  on("fix-play", "submit", (event) => {
    event.preventDefault();
    const f = event.target;
    post("/api/correct/play", {round: num(f, "round") - 1, trick: num(f, "trick") - 1, seat: num(f, "seat"),
      card: num(f, "card"), why: f.elements.why.value}).then(() => location.reload()).catch(() => {});
  });
  on("fix-scoring", "submit", (event) => {
    event.preventDefault();
    const f = event.target;
    post("/api/correct/scoring", {round: num(f, "round") - 1, index: num(f, "index") - 1,
      card: f.elements.card.value, why: f.elements.why.value}).then(() => location.reload()).catch(() => {});
  });
  on("fix-undo", "click", () => post("/api/undo", {}).then(() => location.reload()).catch(() => {}));
})();
