"use strict";
// The scoresheet of the game in play follows the game: when a trick changes the state, the page
// is fetched again (it is drawn on the server, charts included). Ids let a reconnect miss nothing.
(() => {
  const box = document.getElementById("game");
  const shown = Number(box.dataset.events);
  let timer = null;
  const source = new EventSource("/events");
  source.onmessage = (event) => {
    const view = JSON.parse(event.data);
    if (!view.state || view.state.events === shown) return;
    clearTimeout(timer);  // a burst of events (a whole trick) reloads once
    timer = setTimeout(() => { source.close(); location.reload(); }, 400);
  };
})();
