// zkraft console, "Replication, step by step": polls
// /console/api/replication for the messages between the servers (every
// member records only while a page polls), buffers them, and plays them
// back at a chosen speed as arrows between one lane per server, with a
// log beside. Every value is set as text, never as HTML.
"use strict";

(() => {
  const API = "/console/api/replication";
  const POLL_MS = 500;
  // Followers' records reach this server a round or two late (one round
  // is a second): playing this far behind the server's clock lets them
  // arrive before their turn.
  const LAG_MS = 2500;
  const MAX_QUEUE = 20000; // events waiting to be played; newer ones are dropped beyond
  const ROWS = 16;          // arrows kept in the drawing
  const LOG_ROWS = 400;     // rows kept in the log
  const SVG_NS = "http://www.w3.org/2000/svg";

  const root = document.getElementById("steps");
  if (!root) return;

  const st = {
    cursors: new Map(), // member id -> {run, next}
    lanes: [],          // member ids, in order
    queue: [],          // events to play, by time
    rows: [],           // played events in the drawing
    paused: false,
    speed: 1,
    playhead: 0,        // ms, on the servers' clock
    serverSkew: 0,      // server time - page time, ms
    started: false,
    missed: 0,
    dropped: 0,
    played: 0,
    self: 0,
  };

  // ---- building the section ----
  function make(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const h2 = make("h2", {}, "Replication, step by step ");
  h2.append(make("span", { class: "hint" },
    "(the real messages between the servers, each labelled with its ZAB phase and zxid; recorded only while this page is open)"));
  const pause = make("button", { id: "steps-pause" }, "pause");
  const step = make("button", { id: "steps-step", title: "play the next message" }, "step");
  const speed = make("select", { id: "steps-speed" });
  for (const [v, label] of [["1", "real time"], ["0.1", "1/10"], ["0.01", "1/100"], ["0.001", "1/1000"]]) {
    speed.append(make("option", { value: v }, label));
  }
  const pings = make("input", { id: "steps-pings", type: "checkbox" });
  const pingLabel = make("label", { title: "Raft heartbeats, and empty AppendEntries that carry nothing new: about 10 to 20 a second per follower" });
  pingLabel.append(pings, " show PINGs (heartbeats)");
  const live = make("button", { id: "steps-live", title: "drop what is waiting and play from now" }, "skip to now");
  const status = make("span", { id: "steps-status", class: "hint" });
  const controls = make("div", { class: "row" });
  const speedLabel = make("label", {}, "speed ");
  speedLabel.append(speed);
  controls.append(pause, step, speedLabel, pingLabel, live, status);

  const labRow = make("div", { class: "row", id: "steps-lab", hidden: "" });
  const delay = make("input", { id: "steps-delay", type: "number", min: "0", max: "2000", value: "50", style: "width:6em" });
  const slow = make("button", { id: "steps-slow" }, "slow every link");
  const fast = make("button", { id: "steps-fast" }, "restore");
  const labNote = make("span", { class: "hint" },
    "lab only: each read and write between servers waits this long, so one write takes several times it; " +
    "past about a fifth of tickTime heartbeats come late and elections start (make lab LAB_ARGS=\"-tick 2000\" to go slower)");
  const delayLabel = make("label", {}, "delay ms ");
  delayLabel.append(delay);
  labRow.append(delayLabel, slow, fast, labNote);

  const svg = document.createElementNS(SVG_NS, "svg");
  svg.id = "steps-lanes";
  const logTable = make("table", { id: "steps-log" });
  const head = make("tr");
  for (const h of ["time", "from → to", "message", "phase", "ZAB", "epoch", "prev idx/term", "entries", "zxid", "commit", "answer", "ms"]) {
    head.append(make("th", {}, h));
  }
  logTable.append(make("thead"), make("tbody"));
  logTable.tHead.append(head);
  const logBox = make("div", { class: "steps-log" });
  logBox.append(logTable);
  const grid = make("div", { class: "steps-grid" });
  grid.append(svg, logBox);
  root.append(h2, controls, labRow, grid);

  // ---- labels ----
  const hex = z => "0x" + Number(z).toString(16);
  function kindName(m) {
    switch (m.kind) {
      case "append": return m.entries ? "AppendEntries ×" + m.entries : "AppendEntries (empty)";
      case "heartbeat": return "heartbeat";
      case "vote": return "RequestVote";
      case "prevote": return "RequestPreVote";
      case "snapshot": return "InstallSnapshot";
      case "timeout-now": return "TimeoutNow";
      case "forward": return "forwarded write";
    }
    return m.kind;
  }
  function zxidText(m) {
    if (m.firstZxid) return hex(m.firstZxid) + (m.lastZxid && m.lastZxid !== m.firstZxid ? "…" + hex(m.lastZxid) : "");
    if (m.kind === "snapshot") return m.lastZxid ? "up to " + hex(m.lastZxid) : "idx " + m.lastIndex;
    if (m.commands) return "idx " + m.firstIndex + "–" + m.lastIndex + " (zxid unknown)";
    if (m.entries) return "none (no-op or config entry)";
    return "";
  }
  function answerText(m) {
    if (m.error) return "✗ " + m.error;
    switch (m.kind) {
      case "vote": case "prevote": return m.ok ? "granted" : "denied";
      case "forward": return m.ok ? "committed" : "failed";
      case "timeout-now": return "ok";
    }
    return m.ok ? "success" : "rejected (term " + m.respTerm + ")";
  }
  function replyZab(m) {
    if (m.error) return "";
    if (m.zab.startsWith("PROPOSAL")) return "ACK";
    if (m.zab === "NEWEPOCH") return "ACKEPOCH";
    if (m.zab === "DIFF" || m.zab === "SNAP") return m.ok ? "ACK" : "NACK";
    if (m.zab === "REQUEST") return m.ok ? "reply" : "error";
    return m.zab;
  }
  function label(ev) {
    const m = ev.m;
    if (ev.reply) return "↩ " + answerText(m) + (replyZab(m) ? " · " + replyZab(m) : "");
    const z = zxidText(m);
    return kindName(m) + " · " + m.zab + (z ? " · zxid " + z : "") + (m.commit ? " · commit " + m.commit : "");
  }
  const hidden = ev => !pings.checked && ev.m.zab === "PING";
  const timeText = t => { const d = new Date(t); return d.toLocaleTimeString() + "." + String(d.getMilliseconds()).padStart(3, "0"); };

  // ---- receiving ----
  const parseTime = s => Date.parse(s.replace(/(\.\d{3})\d+/, "$1"));
  function enqueue(msgs) {
    for (const m of msgs) {
      const t = parseTime(m.time);
      // at: when it happened (shown); t: when to play it.
      const evs = [{ at: t, t, m, reply: false }];
      if (!m.error) evs.push({ at: t + m.latencyUs / 1000, t: t + m.latencyUs / 1000, m, reply: true });
      for (const ev of evs) {
        if (ev.t < st.playhead) ev.t = st.playhead; // arrived late: play next
        if (st.queue.length >= MAX_QUEUE) { st.dropped++; continue; }
        st.queue.push(ev);
      }
    }
    st.queue.sort((a, b) => a.t - b.t);
  }
  function cursorParam() {
    return [...st.cursors].map(([id, c]) => id + ":" + c.run + ":" + c.next).join(",");
  }
  async function poll() {
    try {
      // Only a caller with credentials turns the recording on (anonymous
      // pages see what is recorded for someone else): send the ones typed
      // in the tree browser's or the lab's Authorization field.
      const auth = ((document.getElementById("auth") || {}).value || (document.getElementById("lab-auth") || {}).value || "").trim();
      const r = await fetch(API + "?after=" + encodeURIComponent(cursorParam()), { headers: auth ? { "Authorization": auth } : {} });
      if (!r.ok) { status.textContent = "replication: " + r.status; return; }
      const ans = await r.json();
      st.self = ans.server;
      st.serverSkew = Date.parse(ans.time) - Date.now();
      for (const mb of ans.members) {
        const old = st.cursors.get(mb.id);
        if (old && old.run === mb.run) st.missed += mb.missed;
        st.cursors.set(mb.id, { run: mb.run, next: mb.next });
        if (!st.lanes.includes(mb.id)) { st.lanes.push(mb.id); st.lanes.sort((a, b) => a - b); }
      }
      for (const m of ans.messages) for (const id of [m.from, m.to]) {
        if (!st.lanes.includes(id)) { st.lanes.push(id); st.lanes.sort((a, b) => a - b); }
      }
      if (!st.started) {
        st.started = true;
        st.playhead = Date.now() + st.serverSkew - LAG_MS;
        ans.messages = ans.messages.filter(m => parseTime(m.time) >= st.playhead);
      }
      enqueue(ans.messages);
      document.dispatchEvent(new CustomEvent("zk-messages", { detail: ans.messages })); // the topology view (topology.js)
      root.dataset.recording = ans.recording;
      if (!ans.members.length) status.textContent = "standalone: no messages between servers";
    } catch (e) {
      status.textContent = "replication: " + e;
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // ---- playing ----
  function play(ev) {
    st.played++;
    st.rows.push(ev);
    if (st.rows.length > ROWS) st.rows.shift();
    logRow(ev);
  }
  let lastWall = performance.now();
  // tick runs on a timer rather than animation frames, which stop in a
  // hidden tab: the playhead must still follow the servers' clock.
  function tick() {
    const now = performance.now();
    const dt = now - lastWall;
    lastWall = now;
    if (st.started && !st.paused) {
      const edge = Date.now() + st.serverSkew - LAG_MS;
      st.playhead = Math.min(st.playhead + dt * st.speed, Math.max(edge, st.playhead));
      let n = 0;
      while (st.queue.length && st.queue[0].t <= st.playhead && n < 200) {
        const ev = st.queue.shift();
        if (!hidden(ev)) { play(ev); n++; }
      }
      if (n) draw();
    }
    showStatus();
  }
  // stepOne plays the next message that is shown, paused.
  function stepOne() {
    setPaused(true);
    while (st.queue.length) {
      const ev = st.queue.shift();
      st.playhead = Math.max(st.playhead, ev.t);
      if (!hidden(ev)) { play(ev); draw(); break; }
    }
    showStatus();
  }
  function setPaused(p) {
    st.paused = p;
    pause.textContent = p ? "resume" : "pause";
    root.dataset.paused = p;
  }
  function showStatus() {
    const waiting = st.queue.filter(ev => !hidden(ev)).length;
    const behind = st.started ? Math.max(0, (Date.now() + st.serverSkew - LAG_MS - st.playhead) / 1000) : 0;
    let s = (st.paused ? "paused · " : "") + waiting + " waiting · " + behind.toFixed(1) + " s behind";
    if (st.missed) s += " · " + st.missed + " not shown (a server's ring or window moved past them before this page read them)";
    if (st.dropped) s += " · " + st.dropped + " dropped (this page's buffer was full: skip to now)";
    if (root.dataset.recording === "false" && st.lanes.length) s += " · not recording";
    if (status.textContent !== s && !status.textContent.startsWith("standalone")) status.textContent = s;
    root.dataset.waiting = waiting;
  }

  // ---- drawing ----
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const ROW_H = 32, TOP = 30, LANE_W = 260;
  function draw() {
    const n = Math.max(st.lanes.length, 1);
    const width = LANE_W * n, height = TOP + ROW_H * ROWS + 10;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    const x = id => LANE_W * st.lanes.indexOf(id) + LANE_W / 2;
    const kids = [svgEl("defs")];
    kids[0].append(marker("arrow", "steps-head"), marker("arrow-reply", "steps-head reply"));
    for (const id of st.lanes) {
      kids.push(svgEl("line", { x1: x(id), y1: TOP - 6, x2: x(id), y2: height, class: "steps-lane" }));
      kids.push(svgEl("text", { x: x(id), y: 16, class: "steps-lane-name" + (id === st.self ? " self" : "") },
        "server " + id + (id === st.self ? " (this page)" : "")));
    }
    st.rows.forEach((ev, i) => {
      const m = ev.m, from = ev.reply ? m.to : m.from, to = ev.reply ? m.from : m.to;
      const y = TOP + ROW_H * i + 20;
      const g = svgEl("g", { class: "steps-msg phase-" + m.phase + (ev.reply ? " reply" : "") + (i === st.rows.length - 1 ? " newest" : "") });
      g.dataset.kind = m.kind;
      g.dataset.zab = m.zab;
      g.dataset.zxid = m.firstZxid ? hex(m.firstZxid) : "";
      g.dataset.reply = ev.reply;
      const x1 = x(from), x2 = x(to), dir = x2 >= x1 ? 1 : -1;
      g.append(svgEl("line", { x1: x1 + 4 * dir, y1: y, x2: x2 - 6 * dir, y2: y,
        "marker-end": "url(#" + (ev.reply ? "arrow-reply" : "arrow") + ")" }));
      g.append(svgEl("text", { x: (x1 + x2) / 2, y: y - 5 }, label(ev)));
      g.append(svgEl("title", {}, timeText(ev.at) + " · " + m.phase + " · epoch " + m.term));
      kids.push(g);
    });
    svg.replaceChildren(...kids);
  }
  function marker(id, cls) {
    const mk = svgEl("marker", { id, viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "9", markerHeight: "9",
      markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
    mk.append(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: cls }));
    return mk;
  }
  function logRow(ev) {
    const m = ev.m;
    const tr = make("tr", { class: "phase-" + m.phase + (ev.reply ? " reply" : "") });
    tr.dataset.kind = m.kind;
    tr.dataset.zab = ev.reply ? replyZab(m) : m.zab;
    tr.dataset.phase = m.phase;
    tr.dataset.zxid = m.firstZxid ? hex(m.firstZxid) : "";
    tr.dataset.reply = ev.reply;
    const from = ev.reply ? m.to : m.from, to = ev.reply ? m.from : m.to;
    const prev = m.prevIndex ? m.prevIndex + " / " + m.prevTerm : "";
    const entries = m.entries ? m.firstIndex + "–" + m.lastIndex + " (" + m.commands + " txn)" : "";
    const cells = [timeText(ev.at), from + " → " + to, ev.reply ? "↩ answer to " + kindName(m) : kindName(m), m.phase,
      ev.reply ? replyZab(m) : m.zab, m.term, ev.reply ? "" : prev, ev.reply ? "" : entries, zxidText(m),
      ev.reply ? "" : (m.commit || ""), ev.reply ? answerText(m) : "", ev.reply ? (m.latencyUs / 1000).toFixed(1) : ""];
    for (const c of cells) tr.append(make("td", {}, String(c)));
    const body = logTable.tBodies[0];
    body.prepend(tr);
    while (body.rows.length > LOG_ROWS) body.deleteRow(-1);
  }

  // ---- controls ----
  pause.addEventListener("click", () => setPaused(!st.paused));
  step.addEventListener("click", stepOne);
  speed.addEventListener("change", () => { st.speed = Number(speed.value); });
  live.addEventListener("click", () => {
    st.queue = [];
    st.dropped = 0;
    st.playhead = Date.now() + st.serverSkew - LAG_MS;
  });
  pings.addEventListener("change", draw);

  // The lab's slow-down: only where /console/api/lab answers (make lab).
  async function slowAll(ms) {
    const lab = await (await fetch("/console/api/lab")).json();
    const auth = (document.getElementById("lab-auth") || {}).value || "digest lab:lab";
    const ids = lab.servers.map(s => s.id);
    for (const a of ids) for (const b of ids) {
      if (a >= b) continue;
      const r = await fetch("/console/api/lab/link", {
        method: "POST", headers: { "Content-Type": "application/json", "Authorization": auth },
        body: JSON.stringify({ a, b, delayMs: ms, loss: 0 }),
      });
      if (!r.ok) { labNote.textContent = "link " + a + "↔" + b + ": " + r.status + " " + await r.text(); return; }
    }
    labNote.textContent = ms ? "every link waits " + ms + " ms per read and write" : "links restored";
  }
  fetch("/console/api/lab").then(r => {
    if (!r.ok) return; // not a lab: no slow-down offered
    labRow.hidden = false;
    slow.addEventListener("click", () => slowAll(Number(delay.value)));
    fast.addEventListener("click", () => slowAll(0));
  }).catch(() => {});

  if (new URLSearchParams(location.search).has("steps")) root.scrollIntoView();
  draw();
  poll();
  setInterval(tick, 50);
})();
