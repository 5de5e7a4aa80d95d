"use strict";
// Zone set-up: tap polygon corners on the camera picture, one area at a time.
(() => {
  const {post, toast} = TR;
  const $ = (id) => document.getElementById(id);
  const box = $("zones");
  const svg = $("zone-svg");
  const names = JSON.parse(box.dataset.seats);
  const current = JSON.parse(box.dataset.current);
  const seatCount = Math.max(3, names.length || (current && current.seats ? current.seats.length : 3));
  const areas = [];
  for (let i = 0; i < seatCount; i++) {
    areas.push({key: "seat" + i, label: `seat ${i + 1}${names[i] ? " (" + names[i] + ")" : ""}`,
      points: current && current.seats && current.seats[i] ? current.seats[i] : []});
  }
  areas.push({key: "scoring", label: "scoring row", points: current && current.scoring ? current.scoring : []});
  const pick = $("zone-pick");
  areas.forEach((a, i) => pick.append(new Option(a.label, String(i))));

  const COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7", "#ffffff"];
  function draw() {
    const g = $("zone-shapes");
    g.replaceChildren();
    areas.forEach((a, i) => {
      if (!a.points.length) return;
      const colour = a.key === "scoring" ? COLOURS[5] : COLOURS[i % 5];
      const poly = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
      poly.setAttribute("points", a.points.map((p) => p.join(",")).join(" "));
      poly.setAttribute("fill", colour);
      poly.setAttribute("fill-opacity", i === Number(pick.value) ? "0.35" : "0.15");
      poly.setAttribute("stroke", colour);
      poly.setAttribute("stroke-width", "4");
      g.append(poly);
      const [x, y] = a.points[0];
      const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
      label.setAttribute("x", x + 8); label.setAttribute("y", y + 36);
      label.setAttribute("fill", colour); label.setAttribute("font-size", "34");
      label.textContent = a.label;
      g.append(label);
    });
  }
  svg.addEventListener("click", (event) => {
    const point = svg.createSVGPoint();
    point.x = event.clientX; point.y = event.clientY;
    const p = point.matrixTransform(svg.getScreenCTM().inverse());
    areas[Number(pick.value)].points.push([Math.round(p.x), Math.round(p.y)]);
    draw();
  });
  pick.addEventListener("change", draw);
  $("zone-clear").addEventListener("click", () => { areas[Number(pick.value)].points = []; draw(); });
  $("zone-save").addEventListener("click", () => {
    const seats = areas.filter((a) => a.key !== "scoring").map((a) => a.points);
    const scoring = areas.find((a) => a.key === "scoring").points;
    post("/api/zones", {seats, scoring}).then((r) => toast("saved " + r.path)).catch(() => {});
  });
  const image = $("zone-image");
  const probe = new Image();
  probe.onload = () => {
    svg.setAttribute("viewBox", `0 0 ${probe.naturalWidth} ${probe.naturalHeight}`);
    image.setAttribute("width", probe.naturalWidth);
    image.setAttribute("height", probe.naturalHeight);
  };
  probe.src = image.getAttribute("href");
  draw();
})();
