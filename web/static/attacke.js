"use strict";
// The live table for a game of Attacke: drawn from the view's snapshot (the contest, whose turn,
// chips, piles, the last contest) plus the game's replay for the contests so far, fetched again
// only when a contest ends or is taken back. Colours never speak alone: each chip carries its
// colour's initial, and the contest's colour is named in words.
const TR_ATTACKE = (() => {
  const {el, post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const INITIAL = {red: "R", yellow: "Y", green: "G", blue: "B", purple: "P"};

  function chip(colour) {
    return el("span", {class: "chip c-" + colour, title: colour, "aria-label": colour + " chip",
      text: INITIAL[colour] || "?"});
  }

  function colourWords(colour) {
    return colour ? el("span", {class: "colour-name"}, chip(colour), " " + colour) : el("span", {class: "muted", text: "not opened yet"});
  }

  function cardWords(card) {
    const [kind, value] = card.split("-");
    return kind === "shield" ? "shield " + value : value;
  }

  function where(state) {
    const c = state.contest;
    if (state.game_over || !c) return "Game over";
    const names = state.players;
    const colour = c.colour ? c.colour : "not opened";
    const turn = state.turn === null ? "" : c.colour ? ` · ${names[state.turn]} to play` : ` · ${names[state.turn]} opens`;
    return `Contest ${c.index + 1} · ${colour}${turn}`;
  }

  function seatItem(state, seat, leds) {
    const c = state.contest;
    const name = state.players[seat];
    const passed = !!c && c.passed.includes(seat);
    const turn = !state.game_over && state.turn === seat;
    const leads = !!c && c.leader === seat;
    const item = el("li", {class: "a-seat", id: "a-seat-" + seat, "data-seat": seat});
    if (passed) item.classList.add("passed");
    if (turn) item.classList.add("turn");
    if (leads) item.classList.add("leads");
    if (state.winners.includes(seat)) item.classList.add("winner");
    const led = el("span", {class: "led", "data-seat": seat, title: "seat light"});
    if (leds && leds.seats && leds.seats[seat]) led.dataset.light = JSON.stringify(leds.seats[seat]);
    const badges = el("span", {class: "badges"});
    if (turn) badges.append(el("b", {class: "badge turn", title: "to play", text: "▶"}));
    if (leads) badges.append(el("b", {class: "badge lead", title: "leads the contest", text: "★"}));
    const total = c ? c.totals[seat] : null;
    const head = el("div", {class: "a-head"}, led, el("b", {class: "name", text: name}), badges,
      el("span", {class: "a-total", title: "total in this contest", text: total === null ? "" : String(total)}));
    let status;
    if (state.game_over) status = state.winners.includes(seat) ? "won the game" : "";
    else if (passed) status = "passed";
    else if (turn) status = c.colour ? "to play" : "opens";
    else if (leads) status = "leads";
    else status = "in";
    const laid = c ? c.cards[seat].map(cardWords) : [];
    const hidden = c ? c.concealed[seat] : 0;
    const cards = laid.length || hidden
      ? "laid " + laid.join(", ") + (hidden ? `${laid.length ? " " : ""}+${hidden} face down` : "") : "";
    const line = el("div", {class: "a-line"}, el("span", {class: "a-state", text: status}),
      cards ? el("span", {class: "a-cards", text: cards}) : null);
    const held = state.chips[seat];
    const chips = el("span", {class: "a-chips"}, el("span", {class: "muted", text: "chips "}),
      ...held.map(chip), el("span", {class: "a-count", text: ` ${held.length}/${state.chips_to_win}`}));
    const hand = el("span", {class: "a-hand", text: `${state.hands[seat]} card${state.hands[seat] === 1 ? "" : "s"} in hand`});
    item.append(head, line, el("div", {class: "a-line"}, chips, hand));
    return item;
  }

  function lastContestWords(state, c) {
    const names = state.players;
    const won = c.chip_won ? `took the ${c.colour} chip` : "won no chip (held already, or none left)";
    const back = c.chips_returned.map((r) => `${names[r.seat]} gave back ${r.colour}`);
    return `Contest ${c.index + 1} (${c.colour}): ${names[c.winner]} won with ${c.totals[c.winner]} and ${won}` +
      (back.length ? "; " + back.join("; ") : "") + ".";
  }

  // The contests so far: the game's replay, fetched when a contest ends or is taken back.
  let historyKey = "";
  async function drawHistory(v) {
    const state = v.state;
    const key = `${v.game_id}:${state.last_contest ? state.last_contest.index : -1}:${state.contest ? "" : "over"}`;
    if (key === historyKey) return;
    historyKey = key;
    let replay;
    try {
      replay = await (await fetch(`/api/games/${v.game_id}/replay`)).json();
    } catch (e) { historyKey = ""; return; }
    if (key !== historyKey || !replay.contests) return;
    const names = state.players;
    const head = el("tr", {}, el("th", {text: "#"}), el("th", {text: "Colour"}),
      ...names.map((n) => el("th", {text: n})), el("th", {text: "Chip"}));
    const rows = replay.contests.map((c) => el("tr", {"data-contest": c.index + 1},
      el("th", {text: String(c.index + 1)}), el("td", {}, colourWords(c.colour)),
      ...c.totals.map((t, seat) => el("td", {class: seat === c.winner ? "winner" : "", text: seat === c.winner ? `${t} ★` : String(t)})),
      el("td", {text: (c.chip_won ? `${names[c.winner]} +${INITIAL[c.colour]}` : "–") +
        c.chips_returned.map((r) => `, ${names[r.seat]} −${INITIAL[r.colour]}`).join("")})));
    const box = $("a-history");
    box.replaceChildren(rows.length
      ? el("table", {class: "sheet", id: "a-contests"}, el("thead", {}, head), el("tbody", {}, ...rows))
      : el("p", {class: "muted", text: "No contest won yet."}));
  }

  let photoKey = "";
  async function drawLastPhoto(gameId, c) {
    const key = `${gameId}:${c.index}`;
    if (key === photoKey) return;
    photoKey = key;
    const link = $("a-last-photo");
    link.hidden = true;
    try {
      const kept = await (await fetch(`/api/games/${gameId}/photos`)).json();
      const url = kept[`${c.index + 1}-1`];
      if (!url || key !== photoKey) return;
      link.setAttribute("href", url);
      link.querySelector("img").src = url + "?size=thumb";
      link.hidden = false;
    } catch (e) { /* no photo shown */ }
  }

  function draw(v) {
    const state = v.state;
    const c = state.contest;
    const title = $("a-title");
    if (c) {
      title.replaceChildren(`Contest ${c.index + 1} · `, colourWords(c.colour));
    } else {
      title.replaceChildren("Game over");
    }
    const names = state.players;
    let lead = "";
    if (c && c.leader !== null && c.colour) lead = `${names[c.leader]} leads with ${c.totals[c.leader]}`;
    else if (c) lead = `${names[c.opener]} opens: the first knights name the colour`;
    if (c) {
      const still = c.in_play.map((s) => names[s]);
      lead += ` · still in: ${still.join(", ")}`;
    }
    $("a-lead").textContent = lead;
    $("a-seats").replaceChildren(...names.map((_, seat) => seatItem(state, seat, v.leds)));
    $("a-winners").textContent = state.game_over
      ? `Winner${state.winners.length > 1 ? "s" : ""}: ${state.winners.map((s) => names[s]).join(", ")} (${state.chips_to_win} chips)` : "";
    $("a-draw").textContent = `Draw pile: ${state.draw_pile} card${state.draw_pile === 1 ? "" : "s"}`;
    $("a-discards").textContent = `discards: ${state.discards}`;
    const last = state.last_contest;
    $("a-last-card").hidden = !last;
    if (last) {
      $("a-last").textContent = lastContestWords(state, last);
      drawLastPhoto(v.game_id, last);
    }
    drawHistory(v);
    const pass = $("a-pass");
    pass.hidden = state.game_over || state.turn === null;
    if (!pass.hidden) {
      pass.textContent = `${names[state.turn]} passes`;
      pass.dataset.seat = String(state.turn);
    }
    drawLaying(state);
  }

  // A laying entered by hand: the host taps the cards the player at turn laid, then Lay.
  let chosen = [];
  let layingSeat = null;

  function drawLaying(state) {
    const seat = state.game_over ? null : state.turn;
    if (seat !== layingSeat) chosen = [];  // another player's turn: start afresh
    layingSeat = seat;
    $("a-lay-head").textContent = seat === null ? "Lay cards" : `${state.players[seat]} lays`;
    $("a-lay-down-label").hidden = !state.variant.concealed;
    $("a-lay").disabled = seat === null;
    drawChosen();
  }

  function drawChosen() {
    const words = chosen.map((card) => card.replace("-", " ")).join(", ");
    $("a-lay-chosen").textContent = chosen.length ? `Laying: ${words}` : "Tap the cards laid, in any order.";
  }

  $("a-lay-cards").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-card]");
    if (!button) return;
    chosen.push(button.dataset.card);
    drawChosen();
  });
  $("a-lay-clear").addEventListener("click", () => { chosen = []; drawChosen(); });
  $("a-lay").addEventListener("click", () => {
    const faceDown = Number($("a-lay-down").value) || 0;
    post("/api/lay", {seat: layingSeat, cards: chosen, face_down: faceDown}).then(() => {
      chosen = [];
      $("a-lay-down").value = "0";
      drawChosen();
      toast("laid");
    }).catch(() => {});
  });

  return {draw, where};
})();
