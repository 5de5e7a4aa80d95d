"use strict";
// The live table: one EventSource; every message is a whole view (state snapshot, status,
// conflict, LED panel), so drawing it is a pure function of the newest message. The browser
// reconnects by itself and sends Last-Event-ID, so it misses nothing.
(() => {
  const {el, post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const MAX_STICKS = 12;
  let view = null;
  let lastId = 0;

  function scoringLabel(card) {
    return card === "blue0" ? "blue 0" : card === "red0" ? "red 0" : card;
  }

  function scoringChip(card, extra) {
    const cls = card === "blue0" ? "scard zero-blue" : card === "red0" ? "scard zero-red" : "scard";
    return el("span", {class: cls + (extra ? " " + extra : ""), text: scoringLabel(card)});
  }

  function sticks(balance) {
    const box = el("div", {class: "sticks"});
    const n = Math.abs(balance);
    const colour = balance > 0 ? "blue" : "red";
    for (let i = 0; i < Math.min(n, MAX_STICKS); i++) box.append(el("span", {class: "stick " + colour}));
    if (n > MAX_STICKS) box.append(el("span", {class: "more", text: "+" + (n - MAX_STICKS)}));
    const words = balance > 0 ? `${n} blue` : balance < 0 ? `${n} red` : "balanced";
    box.append(el("span", {class: "stick-count", text: words}));
    return box;
  }

  function seatBox(state, seat, leds) {
    const n = state.players.length;
    const angle = Math.PI / 2 + (2 * Math.PI * seat) / n; // seat 0 at the bottom, then clockwise
    const box = el("div", {class: "seat", id: "seat-" + seat, "data-seat": seat});
    // a seat box never crosses the table's edge: the circle is as wide as the boxes allow
    const width = n >= 4 ? 28 : 31;
    box.style.width = width + "%";
    box.style.left = (50 + (50 - width / 2 - 1) * Math.cos(angle)) + "%";
    box.style.top = (50 + 37 * Math.sin(angle)) + "%";
    const turn = state.to_play.includes(seat);
    if (turn) box.classList.add("turn");
    if (state.winners.includes(seat)) box.classList.add("winner");
    const badges = el("span", {class: "badges"});
    if (turn) badges.append(el("b", {class: "badge turn", title: "to play", text: "▶"}));
    if (state.dealer === seat) badges.append(el("b", {class: "badge", title: "dealer", text: "D"}));
    if (state.leader === seat) badges.append(el("b", {class: "badge", title: "leads this trick", text: "L"}));
    const led = el("span", {class: "led", "data-seat": seat, title: "seat light"});
    const head = el("div", {class: "seat-head"}, led, el("span", {class: "name", text: state.players[seat]}), badges);
    box.append(head, sticks(state.balances[seat]));
    const play = state.trick_plays.find((p) => p.seat === seat);
    if (play) box.append(el("span", {class: "ncard", text: String(play.card)}));
    if (leds && leds.seats && leds.seats[seat]) led.dataset.light = JSON.stringify(leds.seats[seat]);
    return box;
  }

  function drawTable(state, leds) {
    const table = $("table");
    table.querySelectorAll(".seat").forEach((node) => node.remove());
    for (let seat = 0; seat < state.players.length; seat++) table.append(seatBox(state, seat, leds));
    $("trick-scoring").replaceChildren(...state.trick_scoring.map((c) => scoringChip(c)));
    if (!state.trick_scoring.length) $("trick-scoring").append(el("span", {class: "muted", text: state.game_over ? "game over" : "not revealed yet"}));
    $("trick-plays").replaceChildren(...state.trick_plays.map((p) =>
      el("span", {class: "ncard", title: state.players[p.seat], text: `${p.card}`},
        el("small", {text: " " + state.players[p.seat]}))));
    const covered = $("covered");
    covered.hidden = !state.covered;
    if (state.covered === "blue") covered.textContent = "blue covered: the highest card gets nothing";
    if (state.covered === "red") covered.textContent = "red covered: the lowest card gets nothing";
  }

  function drawStatus(v) {
    const state = v.state;
    $("status").textContent = {idle: "idle", watching: "watching", attention: "needs you", camera_lost: "camera lost", storage_error: "not saving"}[v.status] || v.status;
    $("status").dataset.status = v.status;
    $("message").textContent = v.message || "";
    if (state && state.game === "attacke") {
      $("where").textContent = TR_ATTACKE.where(state);
    } else if (state && state.game === "solo") {
      $("where").textContent = TR_SOLO.where(state);
    } else if (state && !state.game_over) {
      $("where").textContent = `Round ${state.round + 1}/${state.rounds_total} · trick ${state.trick + 1}/9 · dealer ${state.players[state.dealer]}` +
        (state.to_play.length ? ` · ${state.to_play.map((s) => state.players[s]).join(", ")} to play` : " · waiting for the scoring card");
    } else if (state) {
      $("where").textContent = "Game over";
    } else {
      $("where").textContent = "";
    }
  }

  // A question shows the card's crop, its likeliest answers as buttons, and a way to give any
  // other card the rules allow; the table's OK button answers only a single sure proposal.
  const SHOWN = 8;
  function answer(conflict, choice) {
    return post("/api/resolve", {conflict_id: conflict.id, choice: choice})
      .then(() => toast("answered")).catch(() => {});
  }

  function drawBanner(v) {
    const banner = $("banner");
    const choices = $("banner-choices");
    const other = $("banner-other");
    const crop = $("banner-crop");
    choices.replaceChildren();
    other.hidden = true;
    crop.hidden = true;
    $("banner-ok").textContent = "";
    if (v.status === "storage_error") {  // first: nothing new is kept until it is fixed
      banner.hidden = false;
      banner.dataset.kind = "storage";
      $("banner-text").textContent = `Storage problem: ${v.message}. A change that cannot be saved is refused; the scores shown are safe. Free some space on the companion.`;
    } else if (v.conflict) {
      const c = v.conflict;
      banner.hidden = false;
      banner.dataset.kind = "conflict";
      $("banner-text").textContent = c.message + (v.waiting > 1 ? ` (${v.waiting - 1} more waiting)` : "");
      if (c.image) {
        crop.src = c.image;
        crop.hidden = false;
      }
      const cards = c.choices.filter((x) => x.id.startsWith("card:") || x.id.startsWith("scoring:"));
      const others = c.choices.filter((x) => !cards.includes(x));
      for (const choice of [...cards.slice(0, SHOWN), ...others]) {
        choices.append(el("button", {type: "button", class: "choice", "data-choice": choice.id, text: choice.label,
          onclick: () => answer(c, choice.id)}));
      }
      if (c.any_card) {
        other.hidden = false;
        const scoring = c.any_card === "scoring";
        $("banner-card").parentElement.hidden = scoring;
        $("banner-scoring").hidden = !scoring;
        if (scoring) {
          $("banner-scoring").replaceChildren(...cards.map((x) => el("option", {value: x.id, text: x.label})));
        }
        other.onsubmit = (e) => {
          e.preventDefault();
          const choice = scoring ? $("banner-scoring").value : "card:" + $("banner-card").value.trim();
          answer(c, choice);
        };
      }
      const ok = c.choices.find((x) => x.id === c.ok);
      $("banner-ok").textContent = ok ? `The table's OK button answers "${ok.label}".`
        : "Answer here: the table's OK button cannot answer this one.";
    } else if (v.status === "camera_lost") {
      banner.hidden = false;
      banner.dataset.kind = "camera";
      $("banner-text").textContent = (v.message ? v.message + ". " : "The camera is lost. ") + "Enter cards by hand below until it is back.";
      $("manual").open = true;
    } else if (v.setup && v.setup.length) {
      banner.hidden = false;
      banner.dataset.kind = "setup";
      $("banner-text").textContent = v.message || "Setup is not finished.";
      choices.append(el("a", {class: "choice", href: v.setup.includes("zones") ? "/setup/zones" : "/setup", text: "Go to Setup"}));
    } else if (v.state && v.state.supply_short && v.state.supply_short.length) {
      banner.hidden = false;
      banner.dataset.kind = "supply";
      $("banner-text").textContent = `Not enough ${v.state.supply_short.join(" and ")} sticks in the box: the score is still exact.`;
    } else {
      banner.hidden = true;
    }
  }

  function drawSheet(state) {
    const head = el("tr", {}, el("th", {text: "Round"}), ...state.players.map((p) => el("th", {text: p})));
    const struck = new Set();
    state.rounds.forEach((r) => r.struck.forEach(([seat, target]) => struck.add(seat + ":" + target)));
    const rows = state.rounds.map((r, i) => el("tr", {}, el("th", {text: String(i + 1)}),
      ...r.scores.map((s, seat) => el("td", {}, struck.has(seat + ":" + i) ? el("s", {text: String(s)}) : String(s)))));
    if (!state.game_over) {
      rows.push(el("tr", {class: "in-play"}, el("th", {text: `${state.round + 1} now`}),
        ...state.balances.map((b) => el("td", {text: String(Math.abs(b))}))));
    }
    const foot = el("tr", {}, el("th", {text: "Total"}),
      ...state.totals.map((t, seat) => el("td", {class: state.winners.includes(seat) ? "winner" : "", text: String(t)})));
    $("mini-sheet").replaceChildren(el("table", {class: "sheet"}, el("thead", {}, head), el("tbody", {}, ...rows), el("tfoot", {}, foot)));
    $("winners").textContent = state.game_over ? "Winner: " + state.winners.map((s) => state.players[s]).join(", ") : "";
    $("supply").hidden = !state.supply_short.length;
    $("supply").textContent = state.supply_short.length ? `Sticks short in the box: ${state.supply_short.join(", ")}` : "";
  }

  // The photo the camera kept of the last trick (none when it was entered by hand).
  let photoKey = "";
  async function drawLastPhoto(gameId, t) {
    const key = `${gameId}:${t.round + 1}-${t.trick + 1}`;
    if (key === photoKey) return;
    photoKey = key;
    const link = $("last-photo");
    link.hidden = true;
    try {
      const kept = await (await fetch(`/api/games/${gameId}/photos`)).json();
      const url = kept[`${t.round + 1}-${t.trick + 1}`];
      if (!url || key !== photoKey) return;
      link.setAttribute("href", url);
      link.querySelector("img").src = url + "?size=thumb";
      link.hidden = false;
    } catch (e) { /* no photo shown */ }
  }

  function drawLastTrick(state, gameId) {
    const t = state.last_trick;
    $("last-trick-card").hidden = !t;
    if (!t) return;
    drawLastPhoto(gameId, t);
    const names = state.players;
    const high = t.plays.find((p) => p.seat === t.high);
    const low = t.plays.find((p) => p.seat === t.low);
    $("last-trick").textContent = `Round ${t.round + 1}, trick ${t.trick + 1}: scoring ${t.scoring.map(scoringLabel).join(", ")}. ` +
      `${names[t.high]} (${high ? high.card : "?"}) ${t.blue ? "takes " + t.blue + " blue" : "gets nothing"}; ` +
      `${names[t.low]} (${low ? low.card : "?"}) ${t.red ? "takes " + t.red + " red" : "gets nothing"}.`;
  }

  function drawRemaining(state) {
    $("remaining").closest(".card").hidden = state.game_over;
    $("remaining").replaceChildren(...state.remaining_scoring.map((c) => scoringChip(c)));
    $("revealed-line").textContent = state.revealed.length ? "Revealed this round: " + state.revealed.map(scoringLabel).join(", ") : "";
  }

  function drawManual(state) {
    const reveal = $("manual-reveal");
    const canReveal = state.trick_value === null && !state.game_over;
    reveal.replaceChildren(...(canReveal ? state.remaining_scoring : []).map((c) =>
      el("button", {type: "button", class: "scard-button", "data-card": c, text: scoringLabel(c),
        onclick: () => post("/api/reveal", {card: c}).catch(() => {})})));
    if (!canReveal) reveal.append(el("span", {class: "muted", text: "this trick has its scoring card"}));
    const select = $("manual-seat");
    const keep = select.value;
    select.replaceChildren(...state.to_play.map((s) => el("option", {value: s, text: state.players[s]})));
    if (state.to_play.includes(Number(keep))) select.value = keep;
    $("manual-card").max = state.variant.tactical ? 9 * state.players.length : 50;
  }

  // What each light says, in the words of docs/leds.md (the roles come from hardware/view.py).
  const STATUS_WORDS = {
    watching: "green: watching", idle: "dim green: no game in play",
    attention: "amber blinking: answer on the scoresheet", camera_lost: "red double blinks: camera lost",
    storage_error: "red triple blinks: not saving",
  };
  function seatLightWords(light) {
    const sticks = (n) => `${n} ${n === 1 ? "stick" : "sticks"}`;
    switch (light.role) {
      case "turn": return "white breathing: to play";
      case "winner": return "white: won";
      case "leader": return "white: leads the contest";
      case "in": return "dim white: still in the contest";
      case "passed": return "dark: passed";
      case "won": return "white long blinks: won the contest";
      case "high": return "blue blinks: took the blue sticks";
      case "low": return "red blinks: took the red sticks";
      case "balance": return light.balance > 0 ? `blue: ${sticks(light.balance)}` : `red: ${sticks(-light.balance)}`;
      default: return view && view.state && view.state.game === "attacke" ? "dark" : "dark: in balance";
    }
  }

  // `solo`: the solo game's two lights (the player's, the informants'), in its own words.
  function drawLeds(leds, state, box, solo) {
    box = box || $("leds");
    if (!leds || !leds.seats) return;
    const names = state ? state.players : [];
    const used = solo ? 2 : state ? state.players.length : leds.seats.length; // unused LEDs: off
    const words = (light, i) => solo ? TR_SOLO.lightWords(light, i, state)
      : `${names[i] || "seat " + (i + 1)}: ${seatLightWords(light)}`;
    const items = leds.seats.slice(0, used).map((light, i) => el("div", {class: "led-item"},
      el("span", {class: "led big", "data-light": JSON.stringify(light)}),
      el("span", {text: words(light, i)})));
    if (leds.status) {
      items.push(el("div", {class: "led-item"}, el("span", {class: "led big", "data-light": JSON.stringify(leds.status)}),
        el("span", {text: `status: ${STATUS_WORDS[leds.status.state] || "off"}`})));
    }
    box.replaceChildren(...items);
    patterns = leds.patterns || patterns;
  }

  // The virtual LEDs blink with the same patterns as the real ones (hardware/view.py).
  let patterns = {};
  let drawnAt = performance.now();
  function envelope(name, t) {
    const p = patterns[name];
    if (!p) return 1;
    const phase = t % p.period;
    if (p.smooth) return Math.pow(0.5 - 0.5 * Math.cos(2 * Math.PI * phase / p.period), 2.2);
    return p.on.some(([a, b]) => a <= phase && phase < b) ? 1 : 0;
  }
  function animate() {
    const now = performance.now();
    document.querySelectorAll(".led[data-light]").forEach((node) => {
      const light = JSON.parse(node.dataset.light);
      const t = (light.phase_s || 0) + (now - drawnAt) / 1000;
      const level = light.colour === "off" ? 0 : (light.level || 0) * envelope(light.pattern, t);
      const [r, g, b] = light.rgb || [0, 0, 0];
      node.style.backgroundColor = `rgb(${Math.round(255 * r)}, ${Math.round(255 * g)}, ${Math.round(255 * b)})`;
      node.style.opacity = String(0.15 + 0.85 * Math.min(1, level * 1.6));
      node.dataset.colour = light.colour;
    });
  }
  setInterval(animate, 60);

  function draw(v) {
    view = v;
    drawnAt = performance.now();
    drawStatus(v);
    drawBanner(v);
    const state = v.state;
    const attacke = !!state && state.game === "attacke";
    const solo = !!state && state.game === "solo";
    $("no-game").hidden = !!state;
    $("table-wrap").hidden = !state || attacke || solo;
    $("after-table").hidden = !state || attacke || solo;
    $("attacke-wrap").hidden = !attacke;
    $("solo-wrap").hidden = !solo;
    if (attacke) {
      TR_ATTACKE.draw(v);
      drawLeds(v.leds, state, $("a-leds"));
    } else if (solo) {
      TR_SOLO.draw(v);
      drawLeds(v.leds, state, $("s-leds"), true);
    } else if (state) {
      drawTable(state, v.leds);
      drawRemaining(state);
      drawLastTrick(state, v.game_id);
      drawSheet(state);
      drawManual(state);
      drawLeds(v.leds, state);
    }
    document.body.dataset.viewId = String(lastId);
  }

  $("manual-play").addEventListener("submit", (event) => {
    event.preventDefault();
    const seat = Number($("manual-seat").value);
    const card = Number($("manual-card").value);
    post("/api/play", {seat, card}).then(() => { $("manual-card").value = ""; }).catch(() => {});
  });
  $("undo").addEventListener("click", () => post("/api/undo", {}).then(() => toast("undone")).catch(() => {}));
  $("s-undo").addEventListener("click", () => post("/api/undo", {}).then(() => toast("undone")).catch(() => {}));
  $("a-undo").addEventListener("click", () => post("/api/undo", {}).then(() => toast("undone")).catch(() => {}));
  $("a-pass").addEventListener("click", (e) => post("/api/pass", {seat: Number(e.target.dataset.seat)})
    .then(() => toast("passed")).catch(() => {}));

  function connect() {
    const source = new EventSource("/events" + (lastId ? "?last=" + lastId : ""));
    const conn = $("conn");
    source.onopen = () => { conn.dataset.state = "live"; conn.textContent = "live"; };
    source.onmessage = (event) => {
      lastId = Number(event.lastEventId) || lastId;
      draw(JSON.parse(event.data));
    };
    source.onerror = () => {
      conn.dataset.state = "reconnecting";
      conn.textContent = "reconnecting…";
      if (source.readyState === EventSource.CLOSED) { // refused (e.g. 503): retry ourselves
        setTimeout(connect, 3000);
      }
    };
  }
  connect();
})();
