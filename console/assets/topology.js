// zkraft console: the topology view at the top of the page. Every server
// is a node on a ring, coloured by its role, with edges from the leader
// to the others; the real messages between the servers (the batches
// replication.js receives, passed on as "zk-messages" events) move along
// them as dots labelled with their ZAB phase. It redraws on every
// "zk-state" event of app.js. In the lab (make lab) a click on a node or
// an edge offers the lab's actions. Drawn in SVG by the browser; every
// value is set as text, never as HTML.
"use strict";

(() => {
  const root = document.getElementById("topology");
  if (!root) return;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const LAB = "/console/api/lab";

  // Geometry of the drawing (SVG user units; the drawing scales to the page).
  const W = 680, H = 430, CX = W / 2 + 20, CY = 212, RING = 150, R = 32;
  // Messages: at most MAX_DOTS move at once; each crosses its edge in
  // DOT_MS. A batch is spread over at most SPREAD_MS by its messages'
  // own times; one that could not start within STALE_MS of its turn is
  // dropped (counted), so a busy ensemble never floods the page.
  const MAX_DOTS = 30, DOT_MS = 900, SPREAD_MS = 600, STALE_MS = 1500, MAX_QUEUE = 300;

  const view = {
    members: [],     // the latest zk-state's members
    health: {},      // and its verdict
    self: 0,
    pos: new Map(),  // server id -> {x, y}
    leader: 0,       // the one node drawn as leader (0: none)
    lab: false,      // /console/api/lab answered: the lab's actions are offered
    labServers: new Map(), // id -> LabServer, in the lab
    queue: [],       // messages waiting for their turn
    dots: [],        // dots moving
    shown: 0,        // dots started since the page opened
    dropped: 0,      // messages not shown (too many at once)
    pings: false,    // heartbeats are drawn too
  };

  // ---- building the section ----
  function make(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  const h2 = make("h2", {}, "Topology ");
  h2.append(make("span", { class: "hint" },
    "(every server on a ring, coloured by role; the real messages between them move along the edges, " +
    "labelled with their ZAB phase, while the replication recording is on)"));
  const summary = make("span", { id: "topology-summary", class: "topo-summary" }, "waiting for the first update…");
  const pings = make("input", { id: "topology-pings", type: "checkbox" });
  const pingLabel = make("label", { title: "Raft heartbeats and empty AppendEntries: 10 to 20 a second per follower" });
  pingLabel.append(pings, " heartbeats");
  const dotStatus = make("span", { id: "topology-dots", class: "hint" });
  const controls = make("div", { class: "row" });
  controls.append(summary, pingLabel, dotStatus);

  const svg = svgEl("svg", { id: "topology-svg", viewBox: "0 0 " + W + " " + H, role: "img",
    "aria-label": "the servers and the messages between them" });
  const chordLayer = svgEl("g", { class: "topo-chords" });
  const edgeLayer = svgEl("g", { class: "topo-edges" });
  const nodeLayer = svgEl("g", { class: "topo-nodes" });
  const dotLayer = svgEl("g", { class: "topo-dot-layer" });
  const banner = svgEl("text", { x: CX, y: CY + 4, class: "topo-banner", id: "topology-banner" });
  const legend = svgEl("g", { class: "topo-legend", transform: "translate(12 18)" });
  svg.append(legend, chordLayer, edgeLayer, nodeLayer, banner, dotLayer);

  const box = make("div", { class: "topo-box" });
  const menu = make("div", { id: "topology-menu", class: "topo-menu", hidden: "" });
  box.append(svg, menu);
  const result = make("p", { id: "topology-result", class: "hint" });
  root.append(h2, controls, box, result);

  // The legend: roles and ZAB phases.
  (() => {
    let y = 0;
    for (const [cls, text] of [["leader", "leader"], ["follower", "follower"], ["observer", "observer"],
      ["looking", "looking (electing)"], ["unreachable", "unreachable"]]) {
      legend.append(svgEl("circle", { cx: 5, cy: y - 4, r: 5, class: "topo-swatch topo-r-" + cls }),
        svgEl("text", { x: 15, y }, text));
      y += 15;
    }
    y += 6;
    for (const p of ["discovery", "synchronization", "broadcast"]) {
      legend.append(svgEl("circle", { cx: 5, cy: y - 4, r: 4, class: "topo-dot-swatch phase-" + p }),
        svgEl("text", { x: 15, y }, p));
      y += 15;
    }
  })();

  // ---- what a member is drawn as ----
  const hex = z => "0x" + Number(z || 0).toString(16);
  const secs = ms => (ms / 1000).toFixed(ms < 10000 ? 1 : 0);

  // roleOf: never "leader" unless health.leader names it; an unreachable
  // member keeps its last role only greyed; one still loading says so.
  function roleOf(m) {
    const last = m.status ? m.status.role : "";
    if (!m.reachable && m.loading) return { role: "loading", last, text: "loading…" };
    if (!m.reachable) {
      return { role: "unreachable", last, text: last ? "was " + last : "never heard from",
        note: "unreachable · last seen " + (m.status ? secs(m.ageMs) + " s ago" : "never") };
    }
    if (!m.status) return { role: "unknown", last, text: "no figures yet" };
    if (last === "leader" && m.id !== view.leader) {
      return { role: "deposed", last, text: "old leader", note: "leader of epoch " + m.status.epoch + ", not current" };
    }
    return { role: last, last, text: last };
  }

  // lagOf is the leader's figure for follower id: a number, null
  // (unknown) or undefined (no leader figures for it).
  function lagOf(id) {
    const l = view.members.find(m => m.id === view.leader);
    if (!l || !l.status || !l.status.followers) return undefined;
    const f = l.status.followers.find(f => f.id === id);
    return f ? f.lag : undefined;
  }

  // ---- drawing the servers ----
  const nodeEls = new Map(); // server id -> its element (see shell)
  const edgeEls = new Map(); // "a-b" -> the element of the edge or chord between a and b
  function place(members) {
    view.pos.clear();
    const ids = members.map(m => m.id).sort((a, b) => a - b);
    ids.forEach((id, i) => {
      if (ids.length === 1) { view.pos.set(id, { x: CX, y: CY }); return; }
      const a = -Math.PI / 2 + 2 * Math.PI * i / ids.length;
      view.pos.set(id, { x: CX + RING * Math.cos(a), y: CY + RING * Math.sin(a) });
    });
  }

  function arc(x, y, r, frac) {
    frac = Math.min(Math.max(frac, 0.02), 0.999);
    const a0 = -Math.PI / 2, a1 = a0 + 2 * Math.PI * frac;
    const p = a => (x + r * Math.cos(a)).toFixed(1) + " " + (y + r * Math.sin(a)).toFixed(1);
    return "M " + p(a0) + " A " + r + " " + r + " 0 " + (frac > 0.5 ? 1 : 0) + " 1 " + p(a1);
  }
  // lagFrac: how much of the ring around a follower its lag fills (log
  // scale: 10 entries a quarter, 10000 the whole ring).
  const lagFrac = lag => Math.log10(lag + 1) / 4;

  // shell gives a node's or an edge's element g the children it keeps
  // for life: a tooltip, a <g> for its drawing and, on top, hit, a
  // transparent target that alone takes the pointer. A redraw replaces
  // only the drawing, and only when it changed (redraw): the page redraws
  // on every state update, several a second, and Chromium drops a click
  // whose press target leaves the page before the release.
  function shell(g, hit) {
    const el = { g, hit, tip: svgEl("title"), content: svgEl("g", { class: "topo-content" }) };
    g.append(el.tip, el.content, hit);
    return el;
  }
  function redraw(content, parts) {
    const drawing = parts.map(p => p.outerHTML).join("");
    if (content.drawing === drawing) return;
    content.drawing = drawing;
    content.replaceChildren(...parts);
  }

  function drawNode(m) {
    const p = view.pos.get(m.id);
    const r = roleOf(m);
    // One element per server, kept across redraws with its hit target
    // (see shell); only its drawing is redrawn.
    let el = nodeEls.get(m.id);
    if (!el) {
      const g = svgEl("g");
      g.addEventListener("click", ev => {
        if (!view.lab) return;
        ev.stopPropagation();
        nodeMenu(m.id, ev);
      });
      g.addEventListener("keydown", ev => {
        if (!view.lab || (ev.key !== "Enter" && ev.key !== " ")) return;
        ev.preventDefault();
        const b = g.getBoundingClientRect();
        nodeMenu(m.id, { clientX: b.left + b.width / 2, clientY: b.top + b.height / 2 });
        const first = menu.querySelector("button");
        if (first) first.focus();
      });
      el = shell(g, svgEl("circle", { r: R + 10, class: "topo-node-hit" }));
      nodeEls.set(m.id, el);
    }
    const g = el.g, parts = [];
    for (const k of Object.keys(g.dataset)) delete g.dataset[k];
    g.setAttribute("class", "topo-node topo-r-" + r.role + (m.self ? " self" : "") + (m.observer ? " observer" : ""));
    g.setAttribute("transform", "translate(" + p.x.toFixed(1) + " " + p.y.toFixed(1) + ")");
    g.setAttribute("tabindex", view.lab ? 0 : -1);
    g.dataset.serverId = m.id;
    g.dataset.role = r.role;
    g.dataset.lastRole = r.last;
    g.dataset.reachable = m.reachable;
    g.dataset.loading = !!m.loading;
    g.dataset.self = !!m.self;
    const lab = view.labServers.get(m.id);
    if (lab) g.dataset.lab = !lab.running ? "killed" : lab.isolated ? "isolated" : "running";
    const title = ["server " + m.id + (m.self ? " (this page)" : ""), r.text];
    if (r.note) title.push(r.note);
    if (m.status) title.push("epoch " + m.status.epoch, "last zxid " + hex(m.status.lastZxid),
      "log " + m.status.lastLogIndex + " · commit " + m.status.commitIndex + " · applied " + m.status.appliedIndex);
    if (view.lab) title.push("click for the lab's actions");
    el.tip.textContent = title.join("\n");
    if (m.self) parts.push(svgEl("circle", { r: R + 5, class: "topo-self-ring" }));
    parts.push(svgEl("circle", { r: R, class: "topo-disc" }));
    if (r.role === "unreachable") {
      const d = R * 0.72;
      parts.push(svgEl("line", { x1: -d, y1: -d, x2: d, y2: d, class: "topo-cross" }),
        svgEl("line", { x1: -d, y1: d, x2: d, y2: -d, class: "topo-cross" }));
    }
    parts.push(svgEl("text", { y: -3, class: "topo-name" }, "server " + m.id),
      svgEl("text", { y: 12, class: "topo-role" }, r.text));

    // Lag: an arc around the follower that grows with the entries it is
    // behind the leader.
    // A member cut off keeps the leader's figure: how far behind it falls.
    if (view.leader && m.id !== view.leader && !m.loading) {
      const lag = lagOf(m.id);
      if (typeof lag === "number") {
        g.dataset.lag = lag;
        if (lag > 0) parts.push(svgEl("path", { d: arc(0, 0, R + 9, lagFrac(lag)), class: "topo-lag" }));
      } else if (lag === null && m.reachable) { // a cut-off member's is unknown, of course
        g.dataset.lag = "unknown";
        parts.push(svgEl("circle", { r: R + 9, class: "topo-lag unknown" }));
      }
    }

    // Figures below the node (above it for the top half's nodes would hide
    // the edges less, but below reads more easily).
    const lines = [];
    if (m.status) lines.push(["topo-fig", "epoch " + m.status.epoch + " · zxid " + hex(m.status.lastZxid)]);
    if (r.note) lines.push(["topo-note", r.note]);
    if (g.dataset.lag && g.dataset.lag !== "0") {
      lines.push(["topo-note lag", g.dataset.lag === "unknown" ? "lag unknown" : "lag " + g.dataset.lag + " entries"]);
    }
    if (lab && g.dataset.lab !== "running") lines.push(["topo-note", g.dataset.lab === "killed" ? "killed (lab)" : "partitioned away (lab)"]);
    lines.forEach(([cls, text], i) => parts.push(svgEl("text", { y: R + 16 + 13 * i, class: cls }, text)));
    redraw(el.content, parts);
    return g;
  }

  function pairKey(a, b) { return Math.min(a, b) + "-" + Math.max(a, b); }

  // An edge from a to b, ending gap units short of b's disc (the lag).
  function drawLine(a, b, cls, gap, data) {
    const pa = view.pos.get(a), pb = view.pos.get(b);
    const dx = pb.x - pa.x, dy = pb.y - pa.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len;
    const x1 = pa.x + ux * R, y1 = pa.y + uy * R, x2 = pb.x - ux * (R + gap), y2 = pb.y - uy * (R + gap);
    const key = pairKey(a, b);
    let el = edgeEls.get(key);
    if (!el) {
      const g = svgEl("g");
      g.addEventListener("click", ev => {
        if (!view.lab) return;
        ev.stopPropagation();
        edgeMenu(Number(g.dataset.from), Number(g.dataset.to), ev);
      });
      el = shell(g, svgEl("line", { class: "topo-hit" }));
      edgeEls.set(key, el);
    }
    const g = el.g;
    for (const k of Object.keys(g.dataset)) delete g.dataset[k];
    g.setAttribute("class", cls);
    g.dataset.edge = key;
    g.dataset.from = a;
    g.dataset.to = b;
    for (const [k, v] of Object.entries(data || {})) g.dataset[k] = v;
    el.tip.textContent = "server " + a + " ↔ server " + b + (view.lab ? "\nclick for the lab's actions" : "");
    const parts = [svgEl("line", { x1, y1, x2, y2, class: "topo-line" })];
    if (gap > 0) {
      // the gap itself, faint: what the follower still has to receive
      parts.push(svgEl("line", { x1: x2, y1: y2, x2: pb.x - ux * R, y2: pb.y - uy * R, class: "topo-gap" }));
    }
    redraw(el.content, parts);
    for (const [k, v] of Object.entries({ x1: pa.x, y1: pa.y, x2: pb.x, y2: pb.y })) el.hit.setAttribute(k, v);
    return g;
  }

  // settle makes els the children of layer, in order, moving only what
  // is out of place: an element that stays is never taken out of the page
  // (a click on it, or a tool holding it, must not lose it).
  function settle(layer, els) {
    els.forEach((el, i) => {
      if (layer.children[i] !== el) layer.insertBefore(el, layer.children[i] || null);
    });
    while (layer.children.length > els.length) layer.lastChild.remove();
  }

  function draw() {
    const members = view.members;
    place(members);
    const byId = new Map(members.map(m => [m.id, m]));
    const nodes = members.map(drawNode);
    const edges = [], chords = [];
    const linked = new Set();
    if (view.leader && byId.has(view.leader)) {
      for (const m of members) {
        if (m.id === view.leader) continue;
        linked.add(pairKey(view.leader, m.id));
        const lag = m.loading ? undefined : lagOf(m.id);
        const gap = typeof lag === "number" && lag > 0 ? Math.min(70, 14 * Math.log10(lag + 1)) : 0;
        const state = !m.reachable ? (m.loading ? "loading" : "cut") : "up";
        edges.push(drawLine(view.leader, m.id, "topo-edge state-" + state + (m.observer ? " observer" : ""), gap,
          { state, lag: lag === undefined ? "" : String(lag) }));
      }
    }
    // Chords between the others: where votes travel during an election.
    for (const a of members) for (const b of members) {
      if (a.id >= b.id || linked.has(pairKey(a.id, b.id))) continue;
      chords.push(drawLine(a.id, b.id, "topo-chord", 0));
    }
    // Forget the elements of servers and pairs no longer drawn.
    const keep = new Set([...nodes, ...edges, ...chords]);
    for (const els of [nodeEls, edgeEls]) for (const [k, el] of els) if (!keep.has(el.g)) els.delete(k);
    settle(chordLayer, chords);
    settle(edgeLayer, edges);
    settle(nodeLayer, nodes);

    const h = view.health;
    const noQuorum = members.length > 0 && h.quorum === false;
    banner.textContent = noQuorum ? "no quorum" : "";
    root.dataset.quorum = h.quorum === undefined ? "unknown" : String(!!h.quorum);
    root.dataset.leader = view.leader;
    const reach = h.voters ? " · " + h.reachable + " of " + h.voters + " voters reachable" +
      (h.loading ? " (" + h.loading + " loading)" : "") : "";
    const loadingLeader = !view.leader && h.leader && (byId.get(h.leader) || {}).loading;
    summary.textContent = (view.leader ? "leader: server " + view.leader :
      loadingLeader ? "leader: server " + h.leader + " (loading…)" : "no leader") +
      (h.epoch ? " · epoch " + h.epoch : "") + reach + (noQuorum ? " · no quorum" : "");
    summary.classList.toggle("bad", noQuorum || !view.leader);
  }

  document.addEventListener("zk-state", e => {
    const st = e.detail || {};
    view.members = (st.members || []).slice().sort((a, b) => a.id - b.id);
    view.health = st.health || {};
    view.self = st.server || 0;
    // Only health.leader is drawn as leader, and only if it is heard from.
    const l = view.members.find(m => m.id === view.health.leader);
    view.leader = l && l.reachable ? l.id : 0;
    draw();
  });

  // ---- the messages ----
  const parseTime = s => Date.parse(String(s).replace(/(\.\d{3})\d+/, "$1"));
  const isPing = m => m.zab === "PING" || m.kind === "heartbeat";

  document.addEventListener("zk-messages", e => {
    const msgs = (Array.isArray(e.detail) ? e.detail : []).filter(m => view.pings || !isPing(m));
    if (!msgs.length) return;
    const times = msgs.map(m => parseTime(m.time));
    const t0 = Math.min(...times), span = Math.max(...times) - t0;
    const scale = span > SPREAD_MS ? SPREAD_MS / span : 1;
    const now = performance.now();
    msgs.forEach((m, i) => {
      if (view.queue.length >= MAX_QUEUE) { view.dropped++; return; }
      const at = now + (times[i] - t0) * scale;
      view.queue.push({ m, at, reply: false });
      // Votes come back: granted or denied, the answer is the point.
      if ((m.kind === "vote" || m.kind === "prevote") && !m.error) view.queue.push({ m, at: at + DOT_MS, reply: true });
    });
    view.queue.sort((a, b) => a.at - b.at);
  });

  function dotLabel(ev) {
    const m = ev.m;
    if (ev.reply) return (m.ok ? "✓ " : "✗ ") + (m.kind === "prevote" ? "pre-vote" : "vote") + " e" + m.term;
    let s = m.zab;
    if (m.kind === "vote" || m.kind === "prevote") s += " e" + m.term;
    else if (m.firstZxid) s += " " + hex(m.firstZxid);
    return s;
  }

  function startDot(ev, now) {
    const m = ev.m;
    const from = ev.reply ? m.to : m.from, to = ev.reply ? m.from : m.to;
    if (!view.pos.has(from) || !view.pos.has(to)) return false;
    const g = svgEl("g", { class: "topo-dot phase-" + m.phase + (ev.reply ? " reply" : "") + (m.error ? " failed" : "") });
    g.dataset.kind = m.kind;
    g.dataset.zab = m.zab;
    g.dataset.phase = m.phase;
    g.dataset.from = from;
    g.dataset.to = to;
    g.dataset.edge = pairKey(from, to);
    g.dataset.onEdge = view.leader && (from === view.leader || to === view.leader) ? "leader" : "chord";
    if (m.firstZxid) g.dataset.zxid = hex(m.firstZxid);
    g.append(svgEl("title", {}, m.phase + " · " + m.zab + " · server " + from + " → " + to + " · epoch " + m.term +
      (m.error ? " · no answer: " + m.error : "")));
    g.append(svgEl("circle", { r: ev.reply ? 4 : 5.5 }));
    // Labels must not pile up: a dot close behind a labelled one on the
    // same link goes without (its title still says what it is), so a
    // burst of proposals shows as a train of dots behind one label.
    const twin = view.dots.some(d => d.from === from && d.to === to && d.labelled && now - d.start < DOT_MS * 0.5);
    if (!twin) g.append(svgEl("text", { x: 8, y: -7 }, dotLabel(ev)));
    dotLayer.append(g);
    view.dots.push({ g, from, to, start: now, failed: !!m.error && !ev.reply, labelled: !twin });
    view.shown++;
    return true;
  }

  function tick() {
    const now = performance.now();
    // start what is due, as long as there is room
    while (view.queue.length && view.queue[0].at <= now) {
      if (view.dots.length >= MAX_DOTS) {
        // no room: what waited too long is dropped rather than shown late
        while (view.queue.length && view.queue[0].at < now - STALE_MS) { view.queue.shift(); view.dropped++; }
        break;
      }
      startDot(view.queue.shift(), now);
    }
    view.dots = view.dots.filter(d => {
      const t = (now - d.start) / DOT_MS;
      const a = view.pos.get(d.from), b = view.pos.get(d.to);
      // a message that got no answer stops halfway, and fades
      const end = d.failed ? 0.55 : 1;
      if (t >= end + (d.failed ? 0.4 : 0) || !a || !b) { d.g.remove(); return false; }
      // from rim to rim
      const len = Math.hypot(b.x - a.x, b.y - a.y) || 1, ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
      const x0 = a.x + ux * R, y0 = a.y + uy * R, span = Math.max(len - 2 * R, 0);
      const f = Math.min(t, end) * span;
      d.g.setAttribute("transform", "translate(" + (x0 + ux * f).toFixed(1) + " " + (y0 + uy * f).toFixed(1) + ")");
      return true;
    });
    root.dataset.dots = view.dots.length;
    root.dataset.shown = view.shown;
    const recording = (document.getElementById("steps") || { dataset: {} }).dataset.recording;
    let s = view.dots.length + " moving · " + view.shown + " shown";
    if (view.dropped) s += " · " + view.dropped + " not shown (more than " + MAX_DOTS + " at once)";
    if (recording === "false") s += " · not recording: type the Authorization in the tree browser or the lab to see messages";
    if (dotStatus.textContent !== s) dotStatus.textContent = s;
  }
  pings.addEventListener("change", () => { view.pings = pings.checked; });

  // ---- the lab's actions ----
  function labAuth() {
    return ((document.getElementById("lab-auth") || {}).value || (document.getElementById("auth") || {}).value || "").trim();
  }
  async function labPost(action, body, what) {
    hideMenu();
    result.textContent = what + "…";
    try {
      const r = await fetch(LAB + "/" + action, {
        method: "POST", headers: { "Content-Type": "application/json", "Authorization": labAuth() },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      if (!r.ok) { result.textContent = what + ": " + r.status + " " + text; return; }
      result.textContent = what + ": done";
      labStatus(JSON.parse(text));
    } catch (e) {
      result.textContent = what + ": " + e;
    }
  }
  function menuButton(text, action, body) {
    const b = make("button", { type: "button" }, text);
    b.dataset.action = action;
    if (body.id) b.dataset.id = body.id;
    b.addEventListener("click", ev => { ev.stopPropagation(); labPost(action, body, text); });
    return b;
  }
  function showMenu(title, buttons, ev) {
    const rect = box.getBoundingClientRect();
    menu.replaceChildren(make("div", { class: "topo-menu-title" }, title), ...buttons);
    menu.style.left = Math.max(0, ev.clientX - rect.left + 8) + "px";
    menu.style.top = Math.max(0, ev.clientY - rect.top + 8) + "px";
    menu.hidden = false;
  }
  function hideMenu() { menu.hidden = true; }
  function nodeMenu(id, ev) {
    menu.dataset.for = "node";
    menu.dataset.id = id;
    showMenu("server " + id, [menuButton("kill server " + id, "kill", { id }),
      menuButton("restart server " + id, "restart", { id }),
      menuButton("partition server " + id + " away", "partition", { id })], ev);
  }
  function edgeMenu(a, b, ev) {
    menu.dataset.for = "edge";
    menu.dataset.id = pairKey(a, b);
    // The lab partitions a server away from all the others: offer either end.
    const ends = [b, a].filter(id => id !== view.self).concat([b, a].filter(id => id === view.self));
    showMenu("link " + a + " ↔ " + b, [
      ...ends.map(id => menuButton("partition server " + id + " away", "partition", { id })),
      menuButton("heal all partitions", "heal", {}),
      menuButton("slow this link (200 ms)", "link", { a, b, delayMs: 200, loss: 0 }),
      menuButton("restore this link", "link", { a, b, delayMs: 0, loss: 0 })], ev);
  }
  document.addEventListener("click", ev => { if (!menu.contains(ev.target)) hideMenu(); });
  document.addEventListener("keydown", ev => { if (ev.key === "Escape") hideMenu(); });

  function labStatus(st) {
    view.labServers = new Map((st.servers || []).map(s => [s.id, s]));
    if (view.members.length) draw();
  }
  function labRefresh() {
    fetch(LAB).then(r => r.ok ? r.json() : null).then(st => { if (st) labStatus(st); }).catch(() => {});
  }
  fetch(LAB).then(r => r.ok ? r.json() : null).then(st => {
    if (!st) return; // not a lab: nothing to click
    view.lab = true;
    root.dataset.lab = "true";
    labStatus(st);
    setInterval(labRefresh, 2000);
  }).catch(() => {});

  draw();
  setInterval(tick, 40);
})();
