"use strict";
// The live table for the solo Tightrope: drawn from the view's snapshot alone (the pyramid, the
// cards laid out with their running total and the chance at each open spot, the last mission,
// the odds that an informant matches each rank, the decks, every mission so far). Nothing is
// said by colour alone: a spot says "won", "open" or "not open yet", a double agent is struck
// through and named in words.
const TR_SOLO = (() => {
  const {el} = TR;
  const $ = (id) => document.getElementById(id);
  const ROWS = [["3"], ["2a", "2b"], ["1a", "1b", "1c"]];
  const SUITS = ["S", "H", "D", "C"];
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  function percent(p) {
    if (p > 0 && p < 0.01) return "<1 %";
    if (p < 1 && p > 0.99) return ">99 %";
    return `${Math.round(100 * p)} %`;
  }

  function cards(names, marked, mark) {
    if (!names.length) return [el("span", {class: "muted", text: "none"})];
    return names.map((c) => el("span", {class: "pcard" + (marked && marked.includes(c) ? " " + mark : ""), text: c}));
  }

  function spacedCards(names, marked, mark) {
    return cards(names, marked, mark).flatMap((node, i) => (i ? [" ", node] : [node]));
  }

  function where(state) {
    if (state.game_over) return `Game over · ${state.players[0]} ${state.result}`;
    return `Mission ${state.missions.length + 1} · ${state.totals[0]} of 6 spots won · Rebels' deck ${state.rebels.draw}`;
  }

  function spotState(s, chance) {
    if (s.won) return "won" + (s.card ? " · " + s.card : "");
    if (!s.open) return "not open yet";
    return chance === undefined ? "open" : `open · ${percent(chance)} chance`;
  }

  function drawPyramid(state) {
    const spots = Object.fromEntries(state.pyramid.map((s) => [s.spot, s]));
    $("s-pyramid").replaceChildren(...ROWS.map((row) => el("div", {class: "pyr-row", role: "none"},
      ...row.map((name) => {
        const s = spots[name];
        const box = el("div", {class: "spot" + (s.won ? " won" : s.open ? " open" : ""), role: "listitem",
          id: "s-spot-" + name, "data-spot": name},
          el("b", {class: "spot-name", text: name + (s.won ? " ✓" : "")}),
          el("span", {class: "spot-need", text: `needs ${s.need}`}),
          el("span", {class: "spot-state", text: spotState(s, state.chances[name])}));
        return box;
      }))));
  }

  function missionWords(m) {
    const notes = [...m.double_agents.map((c) => `double agent ${c} counts 0`),
      ...m.cancelled.map((c) => `a queen cancels ${c}`), ...m.doubled.map((c) => `a king doubles ${c}`),
      ...m.jokers.map((r) => `a joker stands for ${r}`)];
    if (m.laid) notes.push(`${m.laid} stays on the spot`);
    return notes.length ? notes.join("; ") : "no informant matched";
  }

  function drawMission(state) {
    const laid = state.on_table;
    if (state.game_over) {
      $("s-mission-title").textContent = "Game over";
    } else {
      $("s-mission-title").textContent = `Mission ${state.missions.length + 1}`;
    }
    const total = $("s-total");
    const chances = $("s-chances");
    if (laid.length && !state.game_over) {
      $("s-laid").replaceChildren("Laid out: ", ...spacedCards(laid));
      total.textContent = `Running total ${state.on_table_total}`;
      total.hidden = false;
      $("s-total-note").textContent = "if no hidden informant matches a card";
      chances.replaceChildren(...state.open_spots.map((spot) => {
        const p = state.chances[spot];
        const need = state.pyramid.find((s) => s.spot === spot).need;
        const bar = el("span", {class: "odds-bar", "aria-hidden": "true"});
        bar.style.setProperty("--p", String(p));  // CSSOM: the CSP forbids inline style attributes
        return el("li", {"data-spot": spot}, bar,
          el("span", {text: `at ${spot} (needs ${need}): ${percent(p)} chance to succeed`}));
      }));
    } else {
      $("s-laid").textContent = state.game_over ? "" :
        "No cards laid out: lay a mission's cards face up and the table shows their total and the chance at each open spot.";
      total.hidden = true;
      $("s-total-note").textContent = "";
      chances.replaceChildren();
    }
    const last = state.last_mission;
    $("s-last-box").hidden = !last;
    if (last) {
      $("s-last-head").textContent = `Last mission (${last.index + 1}) at ${last.spot}: ${last.total} of ${last.need}, ${last.success ? "won ✓" : "failed ✗"}`;
      $("s-last-cards").replaceChildren("Played ", ...spacedCards(last.cards, last.double_agents, "agent"),
        " against ", ...spacedCards(last.informants, last.cancelled, "cancelled"));
      $("s-last-words").textContent = missionWords(last) + ".";
    }
  }

  function drawOdds(state) {
    const box = $("s-odds");
    const chances = state.match_chances;
    if (state.game_over || !Object.keys(chances).length) {
      box.replaceChildren(el("p", {class: "muted", text: "No informant is waiting."}));
      return;
    }
    if (state.variant.match_suit) {
      const head = el("tr", {}, el("th", {text: "Rank"}), ...SUITS.map((s) => el("th", {text: s})));
      const rows = RANKS.map((r) => el("tr", {}, el("th", {text: r}),
        ...SUITS.map((s) => el("td", {text: percent(chances[r + s])}))));
      box.replaceChildren(el("table", {class: "sheet odds", id: "s-odds-table"}, el("thead", {}, head), el("tbody", {}, ...rows)));
      return;
    }
    box.replaceChildren(el("ul", {class: "plain odds-grid", id: "s-odds-list"},
      ...RANKS.map((r) => el("li", {"data-rank": r}, el("b", {text: r}), " ", percent(chances[r])))));
  }

  function drawDecks(state) {
    const i = state.informants;
    const parts = [`${plural(i.count, "informant")} waiting, ${i.hidden} hidden`];
    if (i.revealed.length) parts.push(`turned by a jack: ${i.revealed.join(", ")}`);
    if (i.deduced.length) parts.push(`known by elimination: ${i.deduced.join(", ")}`);
    $("s-informants").textContent = parts.join("; ") + ".";
    const r = state.rebels;
    const o = state.opponent;
    $("s-rebels").textContent = `Rebels' deck: ${r.draw} to draw · ${plural(r.hand, "card")} in the hand · ${r.discards} discarded` +
      (state.totals[0] ? ` · ${state.totals[0]} on the pyramid` : "");
    $("s-opponent").textContent = `Opponent's deck: ${o.draw} to draw · ${o.discards} discarded`;
  }

  function drawHistory(state) {
    const box = $("s-history");
    if (!state.missions.length) {
      box.replaceChildren(el("p", {class: "muted", text: "No mission yet."}));
      return;
    }
    const head = el("tr", {}, el("th", {text: "#"}), el("th", {text: "Spot"}), el("th", {text: "Total"}), el("th", {text: "Result"}));
    const rows = state.missions.flatMap((m) => [
      el("tr", {"data-mission": m.index + 1}, el("th", {text: String(m.index + 1)}), el("td", {text: m.spot}),
        el("td", {text: `${m.total} / ${m.need}`}),
        el("td", {class: m.success ? "winner" : "", text: m.success ? "won ✓" : "failed ✗"})),
      el("tr", {class: "result"}, el("td", {}), el("td", {colspan: "3"},
        ...spacedCards(m.cards, m.double_agents, "agent"), " vs ", ...spacedCards(m.informants, m.cancelled, "cancelled"),
        el("br"), missionWords(m)))]);
    box.replaceChildren(el("table", {class: "sheet", id: "s-missions"}, el("thead", {}, head), el("tbody", {}, ...rows)));
  }

  function drawResult(state) {
    const box = $("s-result");
    box.hidden = !state.game_over;
    box.textContent = state.result === "won" ? `${state.players[0]} won: the Big Hit is done.`
      : `${state.players[0]} lost: the Rebels' deck ran out.`;
    box.className = "card " + (state.result === "won" ? "winners" : "warn");
  }

  // What each of the two lights says (hardware/view.py solo_view; docs/leds.md).
  function lightWords(light, seat, state) {
    if (seat === 1) {
      const n = state.informants.count;
      return light.colour === "off" ? "informants: dark, none waiting"
        : `informants: white blinks, one for each of the ${plural(n, "informant")} waiting`;
    }
    const name = state.players[0];
    switch (light.role) {
      case "turn": return `${name}: white breathing, your move`;
      case "mission_won": return `${name}: blue long blinks, the mission succeeded`;
      case "mission_failed": return `${name}: red triple blinks, the mission failed`;
      case "winner": return `${name}: white, won`;
      case "lost": return `${name}: dark, lost`;
      default: return `${name}: dark`;
    }
  }

  function draw(v) {
    const state = v.state;
    drawResult(state);
    drawPyramid(state);
    drawMission(state);
    drawOdds(state);
    drawDecks(state);
    drawHistory(state);
  }

  return {draw, where, lightWords};
})();
