// zkraft console: the tree browser and the sessions table. Reads
// /console/api/znode, /children, /search and /sessions; writes through
// /console/api/create, /set and /delete with the Authorization the user
// types (kept in this page only). The path shown is in the URL's hash
// (#/app/users), so a link to a node can be shared. Every value is set
// as text, never as HTML.
//
// Paths are kept exact: a name may hold '%', '#', '?', '+', spaces or
// any other character but '/'. Every query value is encoded with
// encodeURIComponent, the hash is written by pathHash and read back by
// hashPath (decoded exactly once), and nothing else is ever decoded.
"use strict";

const tree = { path: "/", node: null };

// query encodes params as a query string, each name and value with
// encodeURIComponent.
function query(params) {
  return Object.entries(params).map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("&");
}

// api GETs an API path, as the user typed in the Authorization field
// when there is one (a node's ACL decides what a reader sees). It never
// throws: every failure is a rejected promise.
async function api(path, params) {
  const auth = document.getElementById("auth").value;
  const headers = auth ? { "Authorization": auth } : {};
  const q = query(params);
  const r = await fetch(path + (q ? "?" + q : ""), { headers });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error + (body.code ? " (" + body.code + ")" : ""));
  return body;
}

// pathHash is the location hash that opens path: each name encoded with
// encodeURIComponent, the '/' between names kept (no name holds one), so
// a link stays readable and hashPath reads back exactly path.
function pathHash(path) {
  return "#" + path.split("/").map(encodeURIComponent).join("/");
}

// hashPath is the path the location hash names, decoded once ("/" for no
// hash). It throws a URIError for a hash that is not percent-encoded
// UTF-8, e.g. a hand-made link with a bare '%'.
function hashPath() {
  const h = location.hash.slice(1);
  return h === "" ? "/" : decodeURIComponent(h);
}

// go shows path and puts it in the location hash. A hash that changes
// opens the node (hashchange); the node already in the hash is read again.
function go(path) {
  const h = pathHash(path);
  if (location.hash === h) return openPath(path);
  location.hash = h;
  return Promise.resolve();
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
  const h = pathHash(path);
  a.href = h;
  a.dataset.path = path;
  // Spaces are shown as they are (a name " " is a space wide, "b" and
  // "b " differ), and the exact path is in the tooltip.
  a.style.whiteSpace = "pre-wrap";
  a.title = JSON.stringify(path);
  // A link to the node already open reads it again (the hash does not
  // change, so hashchange would not), e.g. for its version after a
  // BADVERSION. The hashes are compared as written: nothing is decoded.
  a.addEventListener("click", () => {
    if (location.hash === h) openPath(path);
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

// opening numbers the reads of openPath: only the newest one is drawn, so
// a slow answer for a node left since never replaces the one asked last.
let opening = 0;

function openPath(path) {
  const seq = ++opening;
  tree.path = path;
  return api("/console/api/znode", { path }).then(z => {
    if (seq === opening) drawNode(z);
  }).catch(e => {
    if (seq === opening) showNoNode(path + ": " + e.message, path);
  });
}

// showNoNode empties the view and shows why; the edit form then names
// editPath (the path asked for, to create it; "" when no path could be
// read), never the node shown before.
function showNoNode(why, editPath) {
  tree.node = null;
  document.getElementById("tree").dataset.path = "";
  drawCrumbs("/");
  document.getElementById("children").replaceChildren();
  document.getElementById("children-note").textContent = "";
  document.querySelector("#stat tbody").replaceChildren();
  document.querySelector("#acl tbody").replaceChildren();
  document.getElementById("data").textContent = "";
  document.getElementById("data-note").textContent = why;
  document.getElementById("edit-path").value = editPath;
}

// fromHash opens the node the location hash names, or says why it cannot.
function fromHash() {
  let path;
  try {
    path = hashPath();
  } catch (e) {
    opening++; // a read still under way is not drawn over the error
    tree.path = "";
    showNoNode("this link names no path: " + JSON.stringify(location.hash) +
      " is not percent-encoded UTF-8 (a '%' must be written %25)", "");
    return Promise.resolve();
  }
  return openPath(path);
}

function search(ev) {
  ev.preventDefault();
  const prefix = document.getElementById("search").value; // as typed: a name may end in a space
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
    return go(target);
  }).catch(e => { out.className = "hint error"; out.textContent = e.message; });
}

function parentOf(p) {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

// editBody is a write's body; the path is sent exactly as the field holds
// it (names may begin or end with spaces).
function editBody(withVersion) {
  const b = { path: document.getElementById("edit-path").value };
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
      tr.appendChild(pathLinks(s.ephemerals));
      tr.appendChild(pathLinks(s.watches));
      return tr;
    }));
    document.getElementById("sessions").dataset.updated = new Date().toISOString();
  }).catch(() => {}).finally(() => { sessionsLive.busy = false; });
}

// pathLinks is a table cell linking to each path, space-separated ("–"
// for none).
function pathLinks(paths) {
  const td = el("td");
  if (!paths.length) td.textContent = "–";
  paths.forEach((p, i) => {
    if (i > 0) td.appendChild(document.createTextNode(" "));
    td.appendChild(link(p, p));
  });
  return td;
}

function setupTree() {
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
