// zkraft console: reads /console/api/ensemble, then follows the server-sent
// events of /console/api/events and redraws. No framework; every value is
// set as text, never as HTML.
"use strict";

const TIMELINE_MAX = 512; // events kept: this server's 256 and its peers' newest
// server:seq:time -> event, every server's (a restarted server numbers
// its events from 1 again, hence the time in the key)
const timeline = new Map();

// Rows of the ensemble table: label, and how to read the cell from a status.
const rows = [
  ["role", s => s.role],
  ["epoch (Raft term)", s => s.epoch],
  ["last log index", s => s.lastLogIndex],
  ["commit index", s => s.commitIndex],
  ["applied index", s => s.appliedIndex],
  ["last zxid", s => "0x" + s.lastZxid.toString(16)],
  ["leader", s => s.leaderId || "none"],
  ["client address", s => s.clientAddr],
  ["connections", s => s.connections],
  ["sessions", s => s.sessions],
  ["watches", s => s.watches],
  ["znodes", s => s.znodes],
  ["outstanding requests", s => s.outstanding],
  ["latency min/avg/max ms", s => s.latency.min + " / " + s.latency.avg.toFixed(1) + " / " + s.latency.max],
  ["reads p50/p99 ms", s => pair(s.latency.readP50, s.latency.readP99)],
  ["writes p50/p99 ms", s => pair(s.latency.writeP50, s.latency.writeP99)],
  ["packets in/out", s => s.packetsReceived + " / " + s.packetsSent],
  ["figures age", (s, m) => m.self ? "live" : (m.reachable ? "" : "last seen ") + seconds(m.ageMs) + (m.reachable ? "" : " ago")],
];

function seconds(ms) { return (ms / 1000).toFixed(1) + " s"; }

function pair(a, b) {
  const f = v => (v === null || v === undefined) ? "–" : v.toFixed(0);
  return f(a) + " / " + f(b);
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// leaderNow is the one leader the page draws as current (health.leader:
// the leader the answering server follows, if it is heard from; 0: none);
// epochNow is the answering server's epoch; selfId the answering server.
let leaderNow = 0, epochNow = 0, selfId = 0;

// isStale: the member's figures are not current (not heard from lately,
// or none yet).
function isStale(m) {
  return !m.status || !m.reachable;
}

// roleOf is how the page names a member's role: never "leader" unless it
// is the current one. An unreachable member keeps its last role only as
// "was ...", and one still loading says so.
function roleOf(m) {
  if (m.loading) return { role: "loading", text: "loading…" };
  if (!m.status) return { role: "unknown", text: "unknown", title: "no figures: the server is down or cut off" };
  const last = m.status.role;
  if (!m.reachable) {
    return { role: "unreachable", last, text: "unreachable · last seen " + seconds(m.ageMs) + " ago · was " + last,
      title: "not heard from within two ticks" };
  }
  if (last === "leader" && m.id !== leaderNow) {
    return { role: "deposed", last, text: "leader of epoch " + m.status.epoch + " (not current)",
      title: "this server follows server " + (leaderNow || "none") + " in epoch " + epochNow };
  }
  return { role: last, text: last };
}

function drawServers(members) {
  const table = document.getElementById("servers");
  const head = el("tr");
  head.appendChild(el("th", "server"));
  for (const m of members) {
    const th = el("th", "server " + m.id + (m.observer ? " (observer)" : "") + (m.self ? " · this page" : ""));
    th.dataset.serverId = m.id;
    if (m.self) th.classList.add("self");
    head.appendChild(th);
  }
  table.tHead.replaceChildren(head);
  const body = [];
  for (const [label, read] of rows) {
    const tr = el("tr");
    tr.appendChild(el("td", label));
    for (const m of members) {
      let td;
      if (label === "role") {
        const r = roleOf(m);
        td = el("td", r.text, "role role-" + r.role);
        td.dataset.role = r.role;
        if (r.last) td.dataset.lastRole = r.last;
        if (r.title) td.title = r.title;
        td.dataset.stale = isStale(m);
        td.dataset.serverId = m.id;
      } else if (!m.status || m.loading) {
        td = el("td", "–");
      } else {
        td = el("td", read(m.status, m));
      }
      if (isStale(m)) td.classList.add("stale");
      if (m.self) td.classList.add("self");
      tr.appendChild(td);
    }
    body.push(tr);
  }
  table.tBodies[0].replaceChildren(...body);
}

function drawReplication(members) {
  const leader = members.find(m => m.id === leaderNow && m.reachable && m.status && m.status.role === "leader");
  const trs = [];
  const followers = (leader && leader.status.followers) || [];
  const worst = Math.max(1, ...followers.map(f => f.lag || 0));
  for (const f of followers) {
    const tr = el("tr");
    tr.dataset.serverId = f.id;
    tr.appendChild(el("td", "server " + f.id + (f.observer ? " (observer)" : "")));
    tr.appendChild(el("td", f.match === null ? "unknown" : f.match));
    tr.appendChild(el("td", f.lag === null ? "unknown" : f.lag));
    const bar = el("td", undefined, "bar"), fill = el("div");
    if (f.lag === null) fill.className = "unknown";
    else fill.style.width = (100 * f.lag / worst) + "%";
    bar.appendChild(fill);
    tr.appendChild(bar);
    trs.push(tr);
  }
  document.querySelector("#replication tbody").replaceChildren(...trs);
  document.getElementById("replication-none").hidden = !!leader;
}

function describe(ev) {
  switch (ev.kind) {
    case "looking": return "no leader: looking for one (election)";
    case "leader": return "leader elected: server " + ev.leader;
    case "peer-down": return "server " + ev.peer + " unreachable from the leader";
    case "peer-up": return "server " + ev.peer + " reachable again";
    case "membership": return "membership changed: " + ev.detail;
    case "snapshot": return "snapshot taken at zxid 0x" + ev.zxid.toString(16);
    case "snapshot-installed": return "snapshot installed at zxid 0x" + (ev.zxid || 0).toString(16);
  }
  return ev.kind;
}

function byTime(a, b) {
  return Date.parse(a.time) - Date.parse(b.time) || a.server - b.server || a.seq - b.seq;
}

// addTimeline merges events (each with its server) into the timeline and
// redraws it, newest first, each labelled with the server that saw it.
function addTimeline(events) {
  for (const ev of events) timeline.set(ev.server + ":" + ev.seq + ":" + ev.time, ev);
  const keys = [...timeline.keys()].sort((a, b) => byTime(timeline.get(a), timeline.get(b)));
  for (const k of keys.slice(0, Math.max(0, keys.length - TIMELINE_MAX))) timeline.delete(k);
  const items = keys.slice(-TIMELINE_MAX).reverse().map(k => {
    const ev = timeline.get(k), li = el("li", undefined, "ev-" + ev.kind);
    li.dataset.server = ev.server;
    if (ev.server === selfId) li.classList.add("self");
    li.appendChild(el("time", new Date(ev.time).toLocaleTimeString()));
    li.appendChild(el("span", "server " + ev.server, "ev-server"));
    li.appendChild(document.createTextNode(describe(ev) + " · epoch " + ev.term));
    return li;
  });
  document.getElementById("timeline").replaceChildren(...items);
}

// drawHealth writes the header: the current leader, and whether the
// answering server hears from a quorum.
function drawHealth(st) {
  const h = st.health || {};
  leaderNow = h.leader || 0;
  epochNow = h.epoch || 0;
  const leader = document.getElementById("leader");
  leader.dataset.leader = leaderNow;
  leader.textContent = leaderNow ? "leader: server " + leaderNow + " · epoch " + epochNow : "leader: none known";
  const q = document.getElementById("quorum");
  const heard = h.reachable + " of " + h.voters + " voters";
  if (h.loading > 0 && h.quorum) {
    q.dataset.quorum = "loading";
    q.textContent = "loading figures… (" + heard + " heard from so far)";
  } else if (h.quorum) {
    q.dataset.quorum = "yes";
    q.textContent = "quorum: " + heard + " heard from";
  } else {
    q.dataset.quorum = "no";
    q.textContent = "NO QUORUM: this server hears from " + heard + (leaderNow ? "" : " and knows no leader") +
      "; writes cannot commit";
  }
}

function draw(st) {
  const self = st.members.find(m => m.self);
  const s = self && self.status;
  document.getElementById("self").textContent =
    "server " + st.server + (s ? " · " + s.role + " · epoch " + s.epoch : "");
  drawHealth(st);
  drawServers(st.members);
  drawReplication(st.members);
  selfId = st.server;
  addTimeline(st.timeline.map(ev => Object.assign({server: st.server}, ev)).concat(st.peerTimeline || []));
  document.body.dataset.updated = st.time;
  document.dispatchEvent(new CustomEvent("zk-state", { detail: st })); // the sessions table follows it (tree.js)
}

function setLink(up, text) {
  const link = document.getElementById("link");
  link.className = "link " + (up ? "up" : "down");
  link.textContent = text;
}

// STATIC is true for /?static: one snapshot drawn, no live stream, so
// that a headless browser's --screenshot or --dump-dom can finish (a
// page with an open event stream never stops loading).
const STATIC = new URLSearchParams(location.search).has("static");

let stream = null;

function connect() {
  if (STATIC || stream) return;
  stream = new EventSource("/console/api/events");
  stream.addEventListener("state", e => { setLink(true, "live"); draw(JSON.parse(e.data)); });
  // EventSource reconnects by itself; the first update after that has
  // the whole timeline again.
  stream.onerror = () => setLink(false, "reconnecting…");
}

// disconnect ends the stream while nobody can see the page (a hidden tab,
// or printing): the server then gathers nothing for it.
function disconnect(why) {
  if (!stream) return;
  stream.close();
  stream = null;
  setLink(false, why);
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden) disconnect("paused while hidden");
  else connect();
});
window.addEventListener("beforeprint", () => disconnect("paused for printing"));
window.addEventListener("afterprint", connect);

// snapshot draws /console/api/ensemble once. The static page asks the
// server to wait until the other members' figures are in (?settled): its
// one picture then shows the whole ensemble.
function snapshot() {
  return fetch("/console/api/ensemble" + (STATIC ? "?settled" : "")).then(r => r.json()).then(draw);
}

snapshot().catch(() => {}).finally(() => {
  if (STATIC) setLink(false, "static: one snapshot, " + new Date().toLocaleTimeString() + " (reload for a new one)");
  else if (!document.hidden) connect();
});
