"use strict";
// Zone set-up: tap polygon corners on the camera picture, one area at a time; the cards the
// camera sees now are drawn in the colour of the area their centre falls in (as drawn, saved or
// not), so the host can check the layout by laying a card.
(() => {
  const {post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  const box = $("zones");
  const svg = $("zone-svg");
  const camera = svg.dataset.camera === "yes";
  const names = JSON.parse(box.dataset.seats);
  const current = JSON.parse(box.dataset.current);
  const choices = JSON.parse(box.dataset.seatChoices);  // the seat counts the game allows
  const places = JSON.parse(box.dataset.places);        // [name, label]: the game's own places
  const rowLabel = JSON.parse(box.dataset.row);
  const COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7", "#ffffff"];
  const pick = $("zone-pick");
  const seatsPick = $("zone-seats");
  let areas = [];

  function build(seatCount) {
    const old = areas;
    areas = [];
    for (let i = 0; i < seatCount; i++) {
      const kept = old.find((a) => a.key === "seat" + i);
      areas.push({key: "seat" + i, label: `seat ${i + 1}${names[i] ? " (" + names[i] + ")" : ""}`,
        points: kept ? kept.points : (current && current.seats && current.seats[i]) || []});
    }
    const row = old.find((a) => a.key === "scoring");
    areas.push({key: "scoring", label: rowLabel,
      points: row ? row.points : (current && current.scoring) || []});
    for (const [name, label] of places) {
      const kept = old.find((a) => a.key === "place:" + name);
      const saved = current && current.places && current.places[name];
      areas.push({key: "place:" + name, place: name, label, points: kept ? kept.points : saved || []});
    }
    pick.replaceChildren(...areas.map((a, i) => new Option(a.label, String(i))));
    draw();
  }

  function colourOf(i) {
    return areas[i].key === "scoring" || areas[i].place ? COLOURS[5] : COLOURS[i % 5];
  }

  function draw() {
    const g = $("zone-shapes");
    g.replaceChildren();
    areas.forEach((a, i) => {
      if (!a.points.length) return;
      const poly = document.createElementNS(NS, "polygon");
      poly.setAttribute("points", a.points.map((p) => p.join(",")).join(" "));
      poly.setAttribute("fill", colourOf(i));
      poly.setAttribute("fill-opacity", i === Number(pick.value) ? "0.35" : "0.15");
      poly.setAttribute("stroke", colourOf(i));
      poly.setAttribute("stroke-width", "4");
      if (a.place) poly.setAttribute("stroke-dasharray", "14 8");  // a place, not a seat
      g.append(poly);
      const [x, y] = a.points[0];
      const label = document.createElementNS(NS, "text");
      label.setAttribute("x", x + 8); label.setAttribute("y", y + 36);
      label.setAttribute("fill", colourOf(i)); label.setAttribute("font-size", "34");
      label.textContent = a.label;
      g.append(label);
    });
  }

  // Which drawn area holds a point (the scoring row wins where areas overlap, as in the
  // companion); -1 for none.
  function areaOf([x, y]) {
    const inside = (pts) => {
      let hit = false;
      for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
        const [xi, yi] = pts[i];
        const [xj, yj] = pts[j];
        if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
      }
      return hit;
    };
    const drawn = (a) => a.points.length >= 3 && inside(a.points);
    const row = areas.findIndex((a) => a.key === "scoring");
    if (drawn(areas[row])) return row;
    const place = areas.findIndex((a) => a.place && drawn(a));
    return place >= 0 ? place : areas.findIndex((a) => a.key.startsWith("seat") && drawn(a));
  }

  function drawCards(cards) {
    const g = $("zone-cards");
    g.replaceChildren();
    const said = [];
    for (const card of cards) {
      const i = areaOf(card.center);
      const colour = i >= 0 ? colourOf(i) : "#ff4d4d";
      const poly = document.createElementNS(NS, "polygon");
      poly.setAttribute("points", card.corners.map((p) => p.join(",")).join(" "));
      poly.setAttribute("fill", "none");
      poly.setAttribute("stroke", colour);
      poly.setAttribute("stroke-width", "6");
      g.append(poly);
      const name = card.kind === "unknown" ? "?" : card.kind === "scoring"
        ? (card.value === 0 ? `${card.colour} 0` : `scoring ${card.value}`) : String(card.value);
      const text = document.createElementNS(NS, "text");
      text.setAttribute("x", card.center[0] - 20); text.setAttribute("y", card.center[1]);
      text.setAttribute("fill", colour); text.setAttribute("font-size", "40");
      text.setAttribute("stroke", "#000"); text.setAttribute("stroke-width", "1.5");
      text.textContent = name;
      g.append(text);
      said.push(`${name} in ${i >= 0 ? areas[i].label : "no area"}`);
    }
    $("zone-seen").textContent = cards.length ? "The camera sees: " + said.join(", ") + "."
      : "The camera sees no card now: lay one in an area to test it.";
  }

  async function refresh() {
    if (!camera) return;
    const image = $("zone-image");
    const probe = new Image();
    probe.onload = () => {
      svg.setAttribute("viewBox", `0 0 ${probe.naturalWidth} ${probe.naturalHeight}`);
      image.setAttribute("width", probe.naturalWidth);
      image.setAttribute("height", probe.naturalHeight);
      image.setAttribute("href", probe.src);
    };
    probe.src = "/camera.jpg?t=" + Date.now();
    try {
      const r = await fetch("/api/camera/cards", {credentials: "same-origin"});
      if (r.ok) drawCards((await r.json()).cards);
    } catch (e) { /* the next refresh tries again */ }
  }

  svg.addEventListener("click", (event) => {
    const point = svg.createSVGPoint();
    point.x = event.clientX; point.y = event.clientY;
    const p = point.matrixTransform(svg.getScreenCTM().inverse());
    areas[Number(pick.value)].points.push([Math.round(p.x), Math.round(p.y)]);
    draw();
  });
  pick.addEventListener("change", draw);
  seatsPick.addEventListener("change", () => build(Number(seatsPick.value)));
  $("zone-clear").addEventListener("click", () => { areas[Number(pick.value)].points = []; draw(); });
  $("zone-save").addEventListener("click", () => {
    const seats = areas.filter((a) => a.key.startsWith("seat")).map((a) => a.points);
    const scoring = areas.find((a) => a.key === "scoring").points;
    const body = {seats, scoring};
    if (places.length) {  // what is drawn is what is saved; a game without places keeps the file's
      body.places = Object.fromEntries(areas.filter((a) => a.place && a.points.length)
        .map((a) => [a.place, a.points]));
    }
    post("/api/zones", body).then((r) => toast("saved " + r.path)).catch(() => {});
  });

  const saved = current && current.seats ? current.seats.length : choices[0];
  const start = names.length || Math.min(choices[choices.length - 1], Math.max(choices[0], saved));
  seatsPick.value = String(start);
  seatsPick.disabled = names.length > 0;  // a game in play says how many seats there are
  build(start);
  refresh();
  setInterval(refresh, 2000);
})();
