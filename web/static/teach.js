"use strict";
// The deck-teach wizard: one card at a time, the camera's frame saved under the card's name.
(() => {
  const {post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const box = $("teach");
  const cards = JSON.parse(box.dataset.cards);
  const labels = JSON.parse(box.dataset.labels);
  const done = new Set(JSON.parse(box.dataset.done));
  let index = Math.max(0, cards.findIndex((c) => !done.has(c)));

  function show() {
    $("teach-step").textContent = `Card ${index + 1} of ${cards.length}: lay ${labels[index]} and press Capture` +
      (done.has(cards[index]) ? " (captured already; capture again to replace)" : "");
    $("teach-count").textContent = `${done.size} of ${cards.length} captured`;
  }
  $("teach-prev").addEventListener("click", () => { index = (index + cards.length - 1) % cards.length; show(); });
  $("teach-next").addEventListener("click", () => { index = (index + 1) % cards.length; show(); });
  $("teach-capture").addEventListener("click", () => {
    post("/api/teach/capture", {name: cards[index]}).then(() => {
      done.add(cards[index]);
      const preview = $("teach-preview");
      preview.src = "/camera.jpg?t=" + Date.now();
      preview.hidden = false;
      toast(`captured ${labels[index]}`);
      const next = cards.findIndex((c, i) => i > index && !done.has(c));
      index = next >= 0 ? next : Math.max(0, cards.findIndex((c) => !done.has(c)));
      show();
    }).catch(() => {});
  });
  $("teach-run").addEventListener("click", () => {
    post("/api/teach/run", {}).then(() => { $("teach-job").textContent = "learning… (this takes a few minutes)"; poll(); }).catch(() => {});
  });
  function poll() {
    fetch("/api/teach").then((r) => r.json()).then((s) => {
      if (s.job.running) setTimeout(poll, 3000);
      else $("teach-job").textContent = s.job.result;
    });
  }
  show();
})();
