// SkewGuard dashboard: polls /api/clusters/C once a second and redraws; charts are inline SVG drawn
// here (no library, nothing fetched from elsewhere: the page works on a closed network).
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const H = 220, PAD = { left: 44, right: 10, top: 10, bottom: 22 };
  const POLL_MS = 1000;
  let cluster = new URLSearchParams(location.search).get("cluster");
  let updates = 0;

  function el(tag, attrs, text) {
    const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtTime(ms) {
    const d = new Date(ms);
    const p = (n) => String(n).padStart(2, "0");
    return p(d.getUTCMonth() + 1) + "-" + p(d.getUTCDate()) + " " + p(d.getUTCHours()) + ":" + p(d.getUTCMinutes());
  }
  function fmtClock(ms) { return fmtTime(ms).slice(6); }
  function fmtBytes(n) {
    const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(1)) + " " + u[i];
  }

  // One line chart: the series, the threshold (dashed) and the alert states as background bands.
  function drawChart(section, points, value, stateOf, threshold, clearLevel) {
    const svg = section.querySelector("svg");
    // drawn at the size it is shown, so that text and lines keep their proportions
    const W = Math.max(300, Math.round(svg.getBoundingClientRect().width) || 600);
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.replaceChildren();
    if (points.length === 0) {
      svg.appendChild(el("svg:text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "empty" }, "no report yet"));
      return;
    }
    const t0 = points[0].time, t1 = points[points.length - 1].time;
    let max = Math.max(...points.map(value), threshold == null ? 0 : threshold) * 1.2;
    if (!(max > 0)) max = 1;
    const x = (t) => PAD.left + (t1 === t0 ? (W - PAD.left - PAD.right) : (t - t0) / (t1 - t0) * (W - PAD.left - PAD.right));
    const y = (v) => H - PAD.bottom - v / max * (H - PAD.top - PAD.bottom);
    // alert-state bands, one rectangle per run of equal state
    let runStart = 0;
    for (let i = 1; i <= points.length; i++) {
      if (i === points.length || stateOf(points[i]) !== stateOf(points[runStart])) {
        const s = stateOf(points[runStart]);
        if (s !== "NORMAL") {
          const xa = x(points[Math.max(0, runStart - 1)].time), xb = x(points[i - 1].time);
          svg.appendChild(el("svg:rect", { class: "band band-" + s, x: xa, y: PAD.top, width: Math.max(1, xb - xa), height: H - PAD.top - PAD.bottom, "data-state": s }));
        }
        runStart = i;
      }
    }
    for (let k = 0; k <= 4; k++) {
      const v = max * k / 4;
      svg.appendChild(el("svg:line", { class: "grid", x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
      svg.appendChild(el("svg:text", { x: PAD.left - 4, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(2)));
    }
    for (let k = 0; k <= 3; k++) {
      const t = t0 + (t1 - t0) * k / 3;
      svg.appendChild(el("svg:text", { x: x(t), y: H - 6, "text-anchor": k === 0 ? "start" : k === 3 ? "end" : "middle" }, fmtClock(t)));
    }
    if (threshold != null) {
      svg.appendChild(el("svg:line", { class: "threshold", x1: PAD.left, x2: W - PAD.right, y1: y(threshold), y2: y(threshold) }));
      svg.appendChild(el("svg:text", { class: "label", x: W - PAD.right - 2, y: y(threshold) - 4, "text-anchor": "end" }, "threshold " + threshold.toFixed(3)));
    }
    if (clearLevel != null) {
      svg.appendChild(el("svg:line", { class: "clear-level", x1: PAD.left, x2: W - PAD.right, y1: y(clearLevel), y2: y(clearLevel) }));
      svg.appendChild(el("svg:text", { class: "label", x: W - PAD.right - 2, y: y(clearLevel) + 12, "text-anchor": "end" }, "clears below " + clearLevel.toFixed(3)));
    }
    const d = points.map((p, i) => (i === 0 ? "M" : "L") + x(p.time).toFixed(1) + "," + y(value(p)).toFixed(1)).join(" ");
    svg.appendChild(el("svg:path", { class: "series", d: d, "data-points": points.length }));
  }

  function bar(kind, fraction, label, mark) {
    const b = el("div", { class: "bar " + kind });
    b.appendChild(el("i", { style: "width:" + Math.max(0, Math.min(100, fraction * 100)).toFixed(1) + "%" }));
    if (mark != null) b.appendChild(el("b", { class: "mark", style: "left:" + Math.min(100, mark * 100).toFixed(1) + "%" }));
    b.appendChild(el("span", {}, label));
    return b;
  }

  function drawNodes(nodes) {
    const box = document.getElementById("nodes");
    box.replaceChildren();
    if (nodes.length === 0) { box.appendChild(el("p", { class: "empty" }, "no node seen yet")); return; }
    const maxWeight = Math.max(2, ...nodes.map((n) => n.weight));
    for (const n of nodes) {
      const row = el("div", { class: "node", "data-node": n.node });
      const name = el("span", { class: "name" }, n.node);
      if (n.membership && n.membership !== "ACTIVE") name.appendChild(el("small", {}, n.membership.toLowerCase()));
      if (n.excluded) name.appendChild(el("small", { class: "excluded" }, "excluded"));
      row.appendChild(name);
      const u = bar("util" + (n.utilisation > 0.85 ? " high" : ""), n.utilisation,
        (n.utilisation * 100).toFixed(1) + "%" + (n.totalBytes > 0 ? " of " + fmtBytes(n.totalBytes) : ""));
      row.appendChild(u);
      row.appendChild(bar("weight", n.weight / maxWeight, "× " + n.weight.toFixed(2), 1 / maxWeight));
      box.appendChild(row);
    }
  }

  function drawMigrations(v) {
    const phases = document.getElementById("phases");
    phases.replaceChildren();
    const names = { COPY: "copy", PREPARE: "prepare", COMMIT: "commit", CLEANUP: "cleanup", ABORT: "aborting" };
    for (const [p, n] of Object.entries(v.migrationsByPhase)) {
      const chip = el("span", { class: "phase", "data-phase": p }, names[p] + " ");
      chip.appendChild(el("b", {}, String(n)));
      phases.appendChild(chip);
    }
    phases.appendChild(el("span", { class: "phase" }, "committed " + v.migrationsCommitted + ", aborted " + v.migrationsAborted + ", moved " + fmtBytes(v.bytesMoved)));
    const body = document.querySelector("#migrations tbody");
    body.replaceChildren();
    if (v.migrations.length === 0) {
      const tr = el("tr");
      tr.appendChild(el("td", { colspan: 4, class: "empty" }, "no migration running"));
      body.appendChild(tr);
    }
    for (const m of v.migrations.slice(0, 40)) {
      const tr = el("tr", { "data-migration": m.id });
      tr.appendChild(el("td", {}, m.slot >= 0 ? String(m.slot) : "?"));
      tr.appendChild(el("td", {}, (m.source || "?") + " → " + (m.target || "?")));
      tr.appendChild(el("td", {}, names[m.phase] || m.phase));
      const td = el("td");
      const f = m.shardBytes > 0 ? m.bytesCopied / m.shardBytes : (m.phase === "COPY" ? 0 : 1);
      td.appendChild(bar("progress", m.phase === "COPY" ? f : 1, m.shardBytes > 0 ? fmtBytes(m.bytesCopied) + " / " + fmtBytes(m.shardBytes) : ""));
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }

  function drawDecisions(decisions) {
    const list = document.getElementById("decisions");
    list.replaceChildren();
    if (decisions.length === 0) { list.appendChild(el("li", { class: "empty" }, "no decision yet")); return; }
    for (const d of decisions) {
      const li = el("li", { class: d.kind });
      li.appendChild(el("time", {}, fmtTime(d.time)));
      li.appendChild(el("span", { class: "kind" }, d.kind));
      li.appendChild(el("span", { class: "text" }, d.text));
      list.appendChild(li);
    }
  }

  // The operators' controls as badges in the header: dry run, paused, a fixed throttle, excluded nodes.
  function drawControls(c) {
    const box = document.getElementById("controls");
    box.replaceChildren();
    if (c.dryRun) box.appendChild(el("span", { class: "badge control", "data-control": "dry-run" }, "dry run"));
    if (c.paused) box.appendChild(el("span", { class: "badge control", "data-control": "paused" }, "paused"));
    if (c.throttleBytesPerSec > 0) box.appendChild(el("span", { class: "badge control", "data-control": "throttle" }, "throttle " + fmtBytes(c.throttleBytesPerSec) + "/s"));
    if (c.excluded.length > 0) box.appendChild(el("span", { class: "badge control", "data-control": "excluded" }, "excluded " + c.excluded.join(", ")));
  }

  function drawProposals(proposals) {
    const panel = document.getElementById("proposals-panel");
    const box = document.getElementById("proposals");
    box.replaceChildren();
    panel.hidden = proposals.length === 0;
    for (const p of proposals) {
      const div = el("div", { class: "proposal", "data-app": p.app });
      const what = p.app === "migrator"
        ? p.metric + " " + p.current.toFixed(4) + " → " + p.expected.toFixed(4) + " · " + fmtBytes(p.bytesToMove) + " to move · first batch " + p.firstBatch + " of " + p.total + " moves"
        : p.metric + " " + p.current.toFixed(3) + " → " + p.expected.toFixed(3) + " (estimate) · " + p.total + " weights · no data moves";
      div.appendChild(el("h3", {}, p.app + " at " + fmtTime(p.time) + ": " + what));
      const ul = el("ul");
      for (const item of p.items) ul.appendChild(el("li", {}, item));
      if (p.total > p.items.length) ul.appendChild(el("li", { class: "muted" }, "… " + (p.total - p.items.length) + " more (skewguard ctl plan)"));
      div.appendChild(ul);
      box.appendChild(div);
    }
  }

  function badge(id, kind, state) {
    const b = document.getElementById(id);
    b.dataset.state = state;
    b.textContent = kind + " " + state;
  }

  function render(v) {
    badge("heat-state", "heat", v.alertStates.HEAT);
    badge("capacity-state", "capacity", v.alertStates.CAPACITY);
    const last = v.series[v.series.length - 1];
    document.getElementById("heat-latest").textContent = last ? last.heatGini.toFixed(3) : "";
    document.getElementById("cv-latest").textContent = last ? last.capacityCv.toFixed(3) : "";
    drawChart(document.getElementById("heat-chart"), v.series, (p) => p.heatGini, (p) => p.heatState, v.thresholds.HEAT, v.clearLevels.HEAT);
    drawChart(document.getElementById("cv-chart"), v.series, (p) => p.capacityCv, (p) => p.capacityState, v.thresholds.CAPACITY, v.clearLevels.CAPACITY);
    drawNodes(v.nodes);
    drawMigrations(v);
    drawDecisions(v.decisions);
    drawControls(v.controls);
    drawProposals(v.proposals);
    document.getElementById("summary").textContent =
      (last ? "latest report " + fmtTime(last.time) + " UTC · " : "") + v.series.length + " reports shown · weight rounds " + v.weightRounds +
      " · routing epoch " + v.routingEpoch + " · controls: " + v.controls.text + (v.skippedRecords > 0 ? " · " + v.skippedRecords + " undecodable records skipped" : "");
  }

  async function clusters() {
    const r = await fetch("/api/clusters", { cache: "no-store" });
    const list = await r.json();
    const select = document.getElementById("cluster");
    const known = Array.from(select.options).map((o) => o.value);
    if (known.join() !== list.join()) {
      select.replaceChildren(...list.map((c) => el("option", { value: c }, c)));
    }
    if (!cluster && list.length > 0) cluster = list[0];
    if (cluster) select.value = cluster;
  }

  async function poll() {
    const conn = document.getElementById("connection");
    try {
      await clusters();
      if (!cluster) { conn.textContent = "waiting for the first record…"; return; }
      const r = await fetch("/api/clusters/" + encodeURIComponent(cluster), { cache: "no-store" });
      const body = await r.json();
      if (!r.ok) { conn.textContent = body.error; return; }
      render(body);
      updates++;
      document.body.dataset.updates = String(updates);
      conn.textContent = "live · updated " + new Date().toLocaleTimeString();
    } catch (e) {
      conn.textContent = "disconnected (" + e.message + "), retrying…";
    }
  }

  document.getElementById("cluster").addEventListener("change", (e) => {
    cluster = e.target.value;
    history.replaceState(null, "", "?cluster=" + encodeURIComponent(cluster));
    poll();
  });
  poll();
  setInterval(poll, POLL_MS);
})();
