// zkraft console: the tree browser and the sessions table. Reads
// /console/api/znode, /children, /search and /sessions; writes through
// /console/api/create, /set and /delete with the Authorization the user
// types (kept in this page only). The path shown is in the URL's hash
// (#/app/users), so a link to a node can be shared. Every value is set
// as text, never as HTML.
"use strict";

const tree = { path: "/", node: null };

// api GETs an API path, as the user typed in the Authorization field
// when there is one (a node's ACL decides what a reader sees).
function api(path, params) {
  const auth = document.getElementById("auth").value;
  const headers = auth ? { "Authorization": auth } : {};
  return fetch(path + "?" + new URLSearchParams(params), { headers }).then(async r => {
    const body = await r.json();
    if (!r.ok) throw new Error(body.error + (body.code ? " (" + body.code + ")" : ""));
    return body;
  });
}

function bytesOf(b64) {
  const s = atob(b64 || "");
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function hexDump(bytes) {
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = [...bytes.slice(i, i + 16)];
    const hex = row.map(b => b.toString(16).padStart(2, "0")).join(" ");
    const asc = row.map(b => (b >= 32 && b < 127) ? String.fromCharCode(b) : ".").join("");
    lines.push(i.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + " " + asc);
  }
  return lines.join("\n");
}

// formatData shows the node's data as the chosen format asks.
function formatData(z, fmt) {
  if (z.hidden) return ["", "hidden: the node's ACL grants this reader no READ (fill in Authorization below to read as a user)"];
  if (z.null) return ["", "null data"];
  const bytes = bytesOf(z.data);
  let note = z.truncated ? "showing the first " + z.dataLimit + " of " + z.stat.dataLength + " bytes" : "";
  if (fmt === "hex") return [hexDump(bytes), note];
  const text = new TextDecoder().decode(bytes);
  if (fmt === "json") {
    try { return [JSON.stringify(JSON.parse(text), null, 2), note]; }
    catch (e) { return [text, (note ? note + "; " : "") + "not JSON" + (z.truncated ? " (cut)" : "") + ": shown as text"]; }
  }
  return [text, note];
}

function drawData() {
  const z = tree.node;
  if (!z) return;
  const fmt = document.querySelector('input[name="fmt"]:checked').value;
  const [text, note] = formatData(z, fmt);
  document.getElementById("data").textContent = text;
  document.getElementById("data-note").textContent = note;
}

function link(text, path) {
  const a = el("a", text);
  a.href = "#" + path;
  a.dataset.path = path;
  // A link to the node already open reads it again (the hash does not
  // change, so hashchange would not), e.g. for its version after a
  // BADVERSION.
  a.addEventListener("click", () => {
    if ((decodeURIComponent(location.hash.slice(1)) || "/") === path) openPath(path);
  });
  return a;
}

function drawCrumbs(path) {
  const nav = document.getElementById("crumbs");
  const parts = path === "/" ? [] : path.split("/").slice(1);
  const items = [link("/", "/")];
  let p = "";
  parts.forEach((name, i) => {
    p += "/" + name;
    if (i > 0) items.push(document.createTextNode("/"));
    items.push(link(name, p));
  });
  nav.replaceChildren(...items);
}

function drawNode(z) {
  tree.node = z;
  const sec = document.getElementById("tree");
  sec.dataset.path = z.path;
  drawCrumbs(z.path);
  const base = z.path === "/" ? "" : z.path;
  document.getElementById("children").replaceChildren(...z.children.map(c => {
    const li = el("li");
    li.appendChild(link(c, base + "/" + c));
    return li;
  }));
  document.getElementById("children-note").textContent = z.childrenTruncated
    ? "showing " + z.children.length + " of " + z.stat.numChildren + " children" : z.children.length ? "" : "no children";
  drawData();
  const s = z.stat;
  const rows = [["czxid", s.czxid], ["mzxid", s.mzxid], ["pzxid", s.pzxid],
    ["ctime", new Date(s.ctime).toISOString()], ["mtime", new Date(s.mtime).toISOString()],
    ["version", s.version], ["cversion", s.cversion], ["aversion", s.aversion],
    ["ephemeralOwner", s.ephemeralOwner + (s.ephemeralOwner !== "0x0" ? " (ephemeral)" : "")],
    ["dataLength", s.dataLength], ["numChildren", s.numChildren]];
  document.querySelector("#stat tbody").replaceChildren(...rows.map(([k, v]) => {
    const tr = el("tr");
    tr.appendChild(el("td", k));
    tr.appendChild(el("td", v));
    return tr;
  }));
  document.querySelector("#acl tbody").replaceChildren(...z.acl.map(a => {
    const tr = el("tr");
    for (const v of [a.perms, a.scheme, a.id]) tr.appendChild(el("td", v));
    return tr;
  }));
  document.getElementById("edit-path").value = z.path;
  document.getElementById("edit-version").value = s.version;
  document.getElementById("edit-data").value = z.null || z.hidden ? "" : new TextDecoder().decode(bytesOf(z.data));
}

function openPath(path) {
  tree.path = path || "/";
  return api("/console/api/znode", { path: tree.path }).then(drawNode).catch(e => {
    tree.node = null;
    document.getElementById("tree").dataset.path = "";
    drawCrumbs("/");
    document.getElementById("children").replaceChildren();
    document.getElementById("data").textContent = "";
    document.getElementById("data-note").textContent = tree.path + ": " + e.message;
  });
}

function search(ev) {
  ev.preventDefault();
  const prefix = document.getElementById("search").value.trim();
  const note = document.getElementById("search-note");
  api("/console/api/search", { prefix }).then(r => {
    note.textContent = r.paths.length + (r.truncated ? "+ (first " + r.limit + " shown)" : "") + " found";
    document.getElementById("search-results").replaceChildren(...r.paths.map(p => {
      const li = el("li");
      li.appendChild(link(p, p));
      return li;
    }));
  }).catch(e => { note.textContent = e.message; });
}

// write posts one edit; the answer is shown and the view refreshed.
function write(route, body) {
  const out = document.getElementById("edit-result");
  out.className = "hint";
  return fetch("/console/api/" + route, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": document.getElementById("auth").value },
    body: JSON.stringify(body),
  }).then(async r => {
    const text = await r.text();
    let msg = text;
    try { const j = JSON.parse(text); msg = j.error ? j.error + (j.code ? " (" + j.code + ")" : "") : route + " done: " + j.path; }
    catch (e) { /* 401/403 answers are plain text */ }
    if (!r.ok) { out.className = "hint error"; out.textContent = r.status + " " + msg; return; }
    out.textContent = msg;
    loadSessions();
    const target = route === "delete" ? parentOf(body.path) : route === "create" ? JSON.parse(text).path : body.path;
    location.hash = target;
    return openPath(target);
  }).catch(e => { out.className = "hint error"; out.textContent = e.message; });
}

function parentOf(p) {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function editBody(withVersion) {
  const b = { path: document.getElementById("edit-path").value.trim() };
  if (withVersion) b.version = Number(document.getElementById("edit-version").value);
  return b;
}

// The sessions table follows the live stream: app.js announces each
// update ("zk-state"), and when this server's counts (sessions,
// connections, watches, znodes, last zxid) changed the table is read
// again, at most once every SESSIONS_EVERY_MS and never twice at once.
const SESSIONS_EVERY_MS = 2000;
const sessionsLive = { sig: "", at: 0, busy: false, due: false };

document.addEventListener("zk-state", e => {
  const self = e.detail.members.find(m => m.self), s = self && self.status;
  if (!s) return;
  const sig = [s.sessions, s.connections, s.watches, s.znodes, s.lastZxid].join(",");
  if (sig !== sessionsLive.sig) { sessionsLive.sig = sig; sessionsLive.due = true; }
  if (sessionsLive.due && !sessionsLive.busy && Date.now() - sessionsLive.at >= SESSIONS_EVERY_MS) {
    sessionsLive.due = false;
    loadSessions();
  }
});

function loadSessions() {
  sessionsLive.busy = true;
  sessionsLive.at = Date.now();
  return api("/console/api/sessions", {}).then(r => {
    document.querySelector("#sessions tbody").replaceChildren(...r.sessions.map(s => {
      const tr = el("tr");
      tr.dataset.session = s.id;
      tr.appendChild(el("td", s.id));
      tr.appendChild(el("td", s.timeoutMs));
      tr.appendChild(el("td", s.expiresAt ? new Date(s.expiresAt).toLocaleTimeString() : "– (tracked by the leader)"));
      tr.appendChild(el("td", s.local ? "yes" : ""));
      tr.appendChild(el("td", s.ephemerals.join(" ") || "–"));
      tr.appendChild(el("td", s.watches.join(" ") || "–"));
      return tr;
    }));
    document.getElementById("sessions").dataset.updated = new Date().toISOString();
  }).catch(() => {}).finally(() => { sessionsLive.busy = false; });
}

function setupTree() {
  const fromHash = () => openPath(decodeURIComponent(location.hash.slice(1)) || "/");
  window.addEventListener("hashchange", fromHash);
  document.querySelectorAll('input[name="fmt"]').forEach(r => r.addEventListener("change", drawData));
  document.getElementById("search-form").addEventListener("submit", search);
  document.getElementById("do-create").addEventListener("click", () => {
    const b = editBody(false);
    b.data = document.getElementById("edit-data").value;
    b.sequential = document.getElementById("edit-seq").checked;
    write("create", b);
  });
  document.getElementById("do-set").addEventListener("click", () => {
    const b = editBody(true);
    b.data = document.getElementById("edit-data").value;
    write("set", b);
  });
  document.getElementById("do-delete").addEventListener("click", () => write("delete", editBody(true)));
  document.getElementById("sessions-refresh").addEventListener("click", loadSessions);
  fromHash();
  loadSessions();
}

setupTree();
