// zkraft console, "Replication, step by step": polls
// /console/api/replication for the messages between the servers (every
// member records only while a page polls), buffers them, and plays them
// back at a chosen speed as arrows between one lane per server, with a
// log beside. Rows are drawn in the order the messages were sent (an
// answer is its own row, at the time it came back), whatever order they
// reach this page in; the leader's lane is marked; "follow one write"
// shows only the messages of one client write at a time. Every value is
// set as text, never as HTML.
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
  const FOLLOW_ROWS = 40;   // arrows kept for one followed write
  const FOLLOW_QUIET_MS = 100;   // a followed write is complete once this long passes without more of it
  const FOLLOW_MAX_MS = 3000;    // ... or this long after it started, whatever is missing
  const PASSED_MAX = 4000;       // messages kept that were not shown, for the next write picked
  const LOG_ROWS = 400;     // rows kept in the log
  const SVG_NS = "http://www.w3.org/2000/svg";

  const root = document.getElementById("steps");
  if (!root) return;

  const st = {
    cursors: new Map(), // member id -> {run, next}
    lanes: [],          // member ids, in order
    queue: [],          // events to play, by time
    rows: [],           // played events in the drawing, by the time they were sent
    newest: null,       // the event played last
    leader: { id: 0, term: 0 }, // as the messages played so far show it
    follow: false,      // "follow one write"
    target: null,       // the write followed (see follow below)
    skipped: 0,         // messages not shown while following
    passed: [],         // the latest of them, for a write picked after its first messages played
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
  const follow = make("input", { id: "steps-follow", type: "checkbox" });
  const followLabel = make("label", { title: "show only the messages of one client write (its forward, proposals, acks, commits and reply), then of the next one once it is complete" });
  followLabel.append(follow, " follow one write");
  const live = make("button", { id: "steps-live", title: "drop what is waiting and play from now" }, "skip to now");
  const status = make("span", { id: "steps-status", class: "hint" });
  const controls = make("div", { class: "row" });
  const speedLabel = make("label", {}, "speed ");
  speedLabel.append(speed);
  controls.append(pause, step, speedLabel, pingLabel, followLabel, live, status);

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
  svg.setAttribute("width", "100%");
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
    if (ev.reply) return "↩ " + answerText(m) + (replyZab(m) ? " · " + replyZab(m) : "") + (m.op ? " · " + m.op : "");
    const z = zxidText(m);
    return (m.op ? m.op + " · " : "") + kindName(m) + " · " + m.zab + (z ? " · zxid " + z : "") + (m.commit ? " · commit " + m.commit : "");
  }
  const hidden = ev => !pings.checked && ev.m.zab === "PING";
  const timeText = t => { const d = new Date(t); return d.toLocaleTimeString() + "." + String(d.getMilliseconds()).padStart(3, "0"); };

  // ---- receiving ----
  // parseTime reads the servers' RFC 3339 times to the microsecond (ms,
  // fractional): on one machine a forward, the proposal it leads to and
  // the forward's reply can all fall within one millisecond.
  function parseTime(s) {
    const f = /\.(\d+)/.exec(s);
    if (!f) return Date.parse(s);
    return Date.parse(s.replace(f[0], "")) + Number("0." + f[1]) * 1000;
  }
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
    lookahead = null;
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
      draw();
      scrollHere();
      if (!ans.members.length) status.textContent = "standalone: no messages between servers";
    } catch (e) {
      status.textContent = "replication: " + e;
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // ---- the leader ----
  // The leader is the sender of the latest leader's message (AppendEntries,
  // heartbeat, snapshot, TimeoutNow) of the highest term seen, or the
  // server a forward went to; an answer of a higher term unseats it.
  function noteLeader(ev) {
    const m = ev.m, L = st.leader;
    if (ev.reply) {
      if (m.from === L.id && m.respTerm > L.term) st.leader = { id: 0, term: m.respTerm };
      return;
    }
    let id = 0;
    if (["append", "heartbeat", "snapshot", "timeout-now"].includes(m.kind)) id = m.from;
    else if (m.kind === "forward" && !m.error) id = m.to;
    if (id && m.term >= L.term && (id !== L.id || m.term !== L.term)) st.leader = { id, term: m.term };
  }

  // ---- following one write ----
  // A client write is a forward, or a leader's PROPOSAL carrying
  // transactions; it is followed by its zxid (or, before that is known,
  // its log index): the forward and its reply, the AppendEntries that
  // carry it and their acks, then for each follower that got it the
  // first message raising its commit index past it (COMMIT, or a later
  // PROPOSAL+COMMIT) and its ack. It is complete once every follower
  // that got it was told it is committed and a forward got its reply,
  // and nothing more of it came for a moment; then the next write is
  // picked.
  const key = m => m.from + ":" + m.seq + ":" + m.time;
  function startsWrite(ev) {
    const m = ev.m;
    if (ev.reply || m.error || !(m.firstZxid || m.firstIndex)) return false;
    return m.kind === "forward" || (m.kind === "append" && m.commands > 0 && m.zab.startsWith("PROPOSAL"));
  }
  function carries(T, m) {
    if (T.zxid && m.firstZxid) return m.firstZxid <= T.zxid && T.zxid <= (m.lastZxid || m.firstZxid);
    return T.index > 0 && m.firstIndex <= T.index && T.index <= m.lastIndex;
  }
  function ofTarget(T, ev) {
    const m = ev.m;
    if (ev.reply) {
      if (!T.keys.has(key(m))) return false;
      if (m.kind === "forward") T.replied = true;
      return true;
    }
    let mine = false;
    if (m.kind === "forward") {
      mine = T.zxid ? m.firstZxid === T.zxid : (T.index > 0 && m.firstIndex === T.index);
      if (mine) T.forwarded = true;
    } else if (m.kind === "append" && m.entries && carries(T, m)) {
      mine = true;
      T.proposedTo.add(m.to);
    } else if (m.kind === "append" && m.zab.includes("COMMIT") && T.index && m.commit >= T.index &&
               T.proposedTo.has(m.to) && !T.committedTo.has(m.to)) {
      mine = true;
      T.committedTo.add(m.to);
    }
    if (mine) T.keys.add(key(m));
    return mine;
  }
  function newTarget(ev) {
    const m = ev.m;
    const T = { zxid: m.firstZxid || 0, index: m.firstIndex || 0, op: m.op || "", start: ev.t, last: ev.t,
      keys: new Set(), proposedTo: new Set(), committedTo: new Set(), forwarded: false, replied: false, done: false };
    if (m.kind === "append" && m.entries !== m.commands) T.index = 0; // a no-op or config entry first: go by zxid
    return T;
  }
  function targetDone(T) {
    if (st.playhead - T.start > FOLLOW_MAX_MS) return true;
    const committed = T.proposedTo.size > 0 && [...T.proposedTo].every(id => T.committedTo.has(id));
    return committed && (!T.forwarded || T.replied) && st.playhead - T.last >= FOLLOW_QUIET_MS;
  }
  // shown decides whether a played event is drawn: always unless
  // following, then only the followed write's.
  function shown(ev) {
    if (!st.follow) return true;
    let T = st.target;
    if (T && !T.done && ofTarget(T, ev)) { T.last = ev.t; return true; }
    if ((!T || T.done) && startsWrite(ev) && proposalKnown(ev)) {
      T = st.target = newTarget(ev);
      st.rows = [];
      logTable.tBodies[0].replaceChildren();
      // Its messages that reached this page late were played before it
      // (a follower's forward, when the page picked the leader's
      // proposal): they join it now.
      for (const p of st.passed) if (p.t >= T.start - FOLLOW_MAX_MS && ofTarget(T, p)) play(p);
      st.passed = [];
      ofTarget(T, ev);
      return true;
    }
    st.skipped++;
    st.passed.push(ev);
    if (st.passed.length > PASSED_MAX) st.passed.splice(0, st.passed.length - PASSED_MAX);
    return false;
  }
  // Under load a member sends more messages between two rounds than its
  // window carries, and some never reach this page: a forward is picked
  // only when a proposal carrying it is among what has arrived, so that
  // the write followed can be seen whole. lookahead is the zxids carried
  // by the AppendEntries waiting, built when first needed and dropped
  // when more arrive.
  let lookahead = null;
  function proposalKnown(ev) {
    const m = ev.m;
    if (m.kind !== "forward" || !m.firstZxid) return true;
    if (!lookahead) {
      lookahead = new Set();
      for (const q of st.queue) {
        const a = q.m;
        if (q.reply || a.kind !== "append" || !a.entries || !a.firstZxid) continue;
        const last = Math.min(a.lastZxid || a.firstZxid, a.firstZxid + 256);
        for (let z = a.firstZxid; z <= last; z++) lookahead.add(z);
      }
    }
    return lookahead.has(m.firstZxid);
  }
  function checkTarget() {
    const T = st.target;
    if (st.follow && T && !T.done && targetDone(T)) T.done = true;
  }

  // ---- playing ----
  function play(ev) {
    st.played++;
    st.newest = ev;
    // In the order the messages were sent: one that reached this page
    // late goes in its place, not at the bottom.
    let i = st.rows.length;
    while (i > 0 && st.rows[i - 1].at > ev.at) i--;
    st.rows.splice(i, 0, ev);
    const keep = st.follow ? FOLLOW_ROWS : ROWS;
    if (st.rows.length > keep) st.rows.splice(0, st.rows.length - keep);
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
      let n = 0, seen = 0;
      const leader = st.leader.id;
      while (st.queue.length && st.queue[0].t <= st.playhead && n < 200 && seen < 5000) {
        const ev = st.queue.shift();
        seen++;
        noteLeader(ev);
        if (!hidden(ev) && shown(ev)) { play(ev); n++; }
      }
      checkTarget();
      if (n || st.leader.id !== leader) draw();
    }
    showStatus();
  }
  // stepOne plays the next message that is shown, paused.
  function stepOne() {
    setPaused(true);
    while (st.queue.length) {
      const ev = st.queue.shift();
      st.playhead = Math.max(st.playhead, ev.t);
      noteLeader(ev);
      checkTarget();
      if (!hidden(ev) && shown(ev)) { play(ev); draw(); break; }
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
    let s = (st.paused ? "paused · " : "");
    const T = st.target;
    if (st.follow) {
      s += !T ? "waiting for a client write" :
        (T.done ? "followed " : "following ") + (T.op || "a write") + (T.zxid ? " · zxid " + hex(T.zxid) : " · index " + T.index) +
        (T.done ? " · waiting for the next write" : "");
      s += " · " + st.skipped + " other messages not shown · " + behind.toFixed(1) + " s behind";
    } else {
      s += waiting + " waiting · " + behind.toFixed(1) + " s behind";
      if (st.missed) s += " · " + st.missed + " not shown (a server's ring or window moved past them before this page read them)";
    }
    if (st.dropped) s += " · " + st.dropped + " dropped (this page's buffer was full: skip to now)";
    if (root.dataset.recording === "false" && st.lanes.length) s += " · not recording";
    if (status.textContent !== s && !status.textContent.startsWith("standalone")) status.textContent = s;
    root.dataset.waiting = waiting;
    root.dataset.following = st.follow && T ? (T.zxid ? hex(T.zxid) : "index " + T.index) : "";
    root.dataset.followDone = !!(T && T.done);
    root.dataset.leader = st.leader.id || "";
  }

  // ---- drawing ----
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const ROW_H = 32, TOP = 34, MIN_LANE_W = 150, CHAR_W = 6.2;
  // fit sets el's text to full, cut with "…" to avail pixels; the full
  // text goes in title.
  function fit(el, full, avail) {
    el.textContent = full;
    const width = s => (el.getComputedTextLength ? el.getComputedTextLength() : 0) || s.length * CHAR_W;
    if (width(full) <= avail) return;
    let lo = 0, hi = full.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      el.textContent = full.slice(0, mid) + "…";
      if (width(el.textContent) <= avail) lo = mid; else hi = mid - 1;
    }
    el.textContent = full.slice(0, lo) + "…";
    el.classList.add("cut");
  }
  function draw() {
    const n = Math.max(st.lanes.length, 1);
    // The section's width, unscaled: one pixel of the drawing is one of
    // the page, so the text keeps its size.
    const width = Math.max(svg.clientWidth || grid.clientWidth || 0, MIN_LANE_W * n);
    const laneW = width / n;
    const shownRows = st.follow ? Math.max(ROWS, st.rows.length) : ROWS;
    const height = TOP + ROW_H * shownRows + 10;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("height", height);
    svg.dataset.leader = st.leader.id || "";
    const x = id => laneW * st.lanes.indexOf(id) + laneW / 2;
    const kids = [svgEl("defs")];
    kids[0].append(marker("arrow", "steps-head"), marker("arrow-reply", "steps-head reply"));
    const fits = [];
    for (const id of st.lanes) {
      const lead = id === st.leader.id;
      if (lead) kids.push(svgEl("rect", { x: x(id) - laneW / 2 + 2, y: 2, width: laneW - 4, height: TOP - 10, rx: 4, class: "steps-lane-lead" }));
      kids.push(svgEl("line", { x1: x(id), y1: TOP - 6, x2: x(id), y2: height, class: "steps-lane" + (lead ? " leader" : "") }));
      const name = "server " + id + (lead ? " · leader" : "") + (id === st.self ? " (this page)" : "");
      const t = svgEl("text", { x: x(id), y: 18, class: "steps-lane-name" + (id === st.self ? " self" : "") + (lead ? " leader" : "") });
      t.dataset.id = id;
      t.dataset.leader = lead;
      kids.push(t);
      fits.push([t, name, laneW - 8]);
    }
    st.rows.forEach((ev, i) => {
      const m = ev.m, from = ev.reply ? m.to : m.from, to = ev.reply ? m.from : m.to;
      const y = TOP + ROW_H * i + 20;
      const g = svgEl("g", { class: "steps-msg phase-" + m.phase + (ev.reply ? " reply" : "") + (ev === st.newest ? " newest" : "") });
      g.dataset.kind = m.kind;
      g.dataset.zab = m.zab;
      g.dataset.zxid = m.firstZxid ? hex(m.firstZxid) : "";
      g.dataset.reply = ev.reply;
      g.dataset.op = m.op || "";
      g.dataset.from = from;
      g.dataset.to = to;
      g.dataset.at = ev.at;
      g.dataset.y = y;
      const x1 = x(from), x2 = x(to), dir = x2 >= x1 ? 1 : -1;
      g.append(svgEl("line", { x1: x1 + 4 * dir, y1: y, x2: x2 - 6 * dir, y2: y,
        "marker-end": "url(#" + (ev.reply ? "arrow-reply" : "arrow") + ")" }));
      const text = svgEl("text", { x: (x1 + x2) / 2, y: y - 5 });
      g.append(text);
      const full = label(ev);
      g.append(svgEl("title", {}, full + "\n" + timeText(ev.at) + " · " + m.phase + " · epoch " + m.term));
      fits.push([text, full, Math.abs(x2 - x1) - 12]);
      kids.push(g);
    });
    svg.replaceChildren(...kids);
    for (const [el, full, avail] of fits) fit(el, full, avail);
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
    const what = (ev.reply ? "↩ answer to " + kindName(m) : kindName(m)) + (m.op ? " · " + m.op : "");
    const cells = [timeText(ev.at), from + " → " + to, what, m.phase,
      ev.reply ? replyZab(m) : m.zab, m.term, ev.reply ? "" : prev, ev.reply ? "" : entries, zxidText(m),
      ev.reply ? "" : (m.commit || ""), ev.reply ? answerText(m) : "", ev.reply ? (m.latencyUs / 1000).toFixed(1) : ""];
    for (const c of cells) tr.append(make("td", {}, String(c)));
    tr.dataset.op = m.op || "";
    tr.dataset.at = ev.at;
    // Newest first, by the time each was sent.
    const body = logTable.tBodies[0];
    let before = body.firstElementChild;
    while (before && Number(before.dataset.at) > ev.at) before = before.nextElementSibling;
    body.insertBefore(tr, before);
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
  follow.addEventListener("change", () => {
    st.follow = follow.checked;
    st.target = null;
    st.skipped = 0;
    st.passed = [];
    st.rows = [];
    root.dataset.follow = st.follow;
    draw();
    showStatus();
  });
  addEventListener("resize", draw);

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

  // /?steps scrolls here once the view has content (the first answer),
  // and keeps it in place while the sections above still fill in, until
  // the reader scrolls.
  let wantScroll = new URLSearchParams(location.search).has("steps");
  function scrollHere() {
    if (!wantScroll) return;
    wantScroll = false;
    let moved = false;
    for (const e of ["wheel", "keydown", "touchstart", "mousedown"]) {
      addEventListener(e, () => { moved = true; }, { once: true, passive: true });
    }
    const until = performance.now() + 3000;
    const keep = () => {
      if (moved) return;
      if (Math.abs(root.getBoundingClientRect().top) > 1) root.scrollIntoView({ block: "start" });
      root.dataset.scrolled = "true";
      if (performance.now() < until) requestAnimationFrame(keep);
    };
    requestAnimationFrame(keep);
  }
  draw();
  poll();
  setInterval(tick, 50);
})();
