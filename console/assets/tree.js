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
  paneReveal(z);
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
  pane.selected = "";
  drawPane();
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

// The tree pane: the tree beside the node view, as ZooNavigator draws
// one. The root is at the top; a toggle (or Enter/Space, or the arrows)
// expands a node, reading its children on first expansion from
// /console/api/children, the read the children list makes, so its ACL
// and MaxChildren apply as there ("… N more" for a cut list; a node the
// reader may not READ shows "hidden", never its children). A name is a
// link like those in the children list: a click opens the node. Opening
// a node anywhere (crumbs, children, search, a link) selects it here and
// expands its ancestors, and reads again its children when they are
// known. The pane is drawn from its model (what is expanded, the children
// read, the selection), so a redraw keeps it as it was; expanded nodes
// are read again, at most every PANE_EVERY_MS, when this server's znode
// count or last zxid changes.
const PANE_EVERY_MS = 2000;
// PANE_REFRESH_MAX bounds the reads of one such refresh.
const PANE_REFRESH_MAX = 50;
const pane = {
  kids: new Map(),     // path -> { children, truncated, numChildren, hidden, error }
  loading: new Map(),  // path -> the newest read of its children under way
  seq: new Map(),      // path -> the number of its newest read
  expanded: new Set(["/"]),
  selected: "",        // the node open in the node view
  scrollDue: false,    // the selection is to be scrolled into the pane's view
  focus: "/",          // the item Tab reaches (one item at a time is tabbable)
};
const paneLive = { sig: "", at: 0, busy: false, due: false };

function childPath(parent, name) {
  return (parent === "/" ? "" : parent) + "/" + name;
}

// ancestorsOf is every node above path, the root first.
function ancestorsOf(path) {
  const out = [];
  for (let p = path; p !== "/"; ) {
    p = parentOf(p);
    out.unshift(p);
  }
  return out;
}

// paneLoad reads path's children; only the newest read of a path is kept.
// It never rejects: a failure is kept and shown in place of the children.
function paneLoad(path) {
  const seq = (pane.seq.get(path) || 0) + 1;
  pane.seq.set(path, seq);
  const p = api("/console/api/children", { path }).then(
    r => ({ children: r.children, truncated: r.truncated, numChildren: r.numChildren, hidden: r.hidden }),
    e => ({ children: [], error: e.message }),
  ).then(k => {
    if (pane.seq.get(path) !== seq) return;
    pane.kids.set(path, k);
    pane.loading.delete(path);
    drawPaneSoon();
  });
  pane.loading.set(path, p);
  return p;
}

// isLeaf: the node's children were read and there are none.
function isLeaf(k) {
  return !!k && !k.error && !k.hidden && !k.truncated && k.children.length === 0;
}

function paneNote(text, cls) {
  const li = el("li", text, "tp-note" + (cls ? " " + cls : ""));
  li.setAttribute("role", "none");
  return li;
}

function paneItem(path, name, level, byPath) {
  const li = el("li");
  li.setAttribute("role", "treeitem");
  li.setAttribute("aria-level", String(level));
  li.dataset.path = path;
  li.tabIndex = -1;
  const k = pane.kids.get(path), leaf = isLeaf(k), open = !leaf && pane.expanded.has(path);
  if (!leaf) li.setAttribute("aria-expanded", String(open));
  li.setAttribute("aria-selected", String(path === pane.selected));
  const row = el("div", undefined, "tp-row");
  const tog = el("span", leaf ? "·" : open ? "▾" : "▸", "tp-toggle" + (leaf ? " leaf" : ""));
  tog.setAttribute("aria-hidden", "true");
  if (!leaf) tog.addEventListener("click", () => paneToggle(path));
  const a = link(name, path);
  a.tabIndex = -1;
  a.style.whiteSpace = "pre";
  row.append(tog, a);
  li.appendChild(row);
  byPath.set(path, li);
  if (open) {
    const g = el("ul");
    g.setAttribute("role", "group");
    if (!k) g.appendChild(paneNote("loading…"));
    else if (k.error) g.appendChild(paneNote(k.error, "error"));
    else if (k.hidden) g.appendChild(paneNote("hidden: the node's ACL grants this reader no READ"));
    else {
      for (const c of k.children) g.appendChild(paneItem(childPath(path, c), c, level + 1, byPath));
      if (k.truncated) g.appendChild(paneNote("… " + Math.max(k.numChildren - k.children.length, 0) + " more"));
    }
    li.appendChild(g);
  }
  return li;
}

// drawPane draws the pane from its model; the focus, when in the pane,
// stays on the same node (or the nearest shown node above it).
function drawPane() {
  const ul = document.getElementById("treepane");
  if (!ul) return;
  const had = ul.contains(document.activeElement);
  let byPath = new Map();
  const root = paneItem("/", "/", 1, byPath);
  let f = pane.focus;
  while (!byPath.has(f) && f !== "/") f = parentOf(f);
  pane.focus = f;
  byPath.get(f).tabIndex = 0;
  const cur = ul.firstElementChild;
  if (cur && cur.outerHTML === root.outerHTML) {
    // The same drawing: keep the elements on the page. A redraw between a
    // button's press and its release (the background refreshes) would
    // otherwise swallow the click on a toggle.
    byPath = new Map([...ul.querySelectorAll("[role=treeitem]")].map(e => [e.dataset.path, e]));
  } else {
    ul.replaceChildren(root);
  }
  const li = byPath.get(f);
  if (had) li.focus({ preventScroll: true });
  const sel = byPath.get(pane.selected);
  if (pane.scrollDue && sel) {
    // Only the pane scrolls, never the page.
    const r = sel.firstChild.getBoundingClientRect(), b = ul.getBoundingClientRect();
    if (r.top < b.top) ul.scrollTop += r.top - b.top;
    else if (r.bottom > b.bottom) ul.scrollTop += r.bottom - b.bottom;
    if (!pane.loading.size) pane.scrollDue = false;
  }
}

// drawPaneSoon draws the pane once for the answers that arrive together.
let paneDrawDue = false;
function drawPaneSoon() {
  if (paneDrawDue) return;
  paneDrawDue = true;
  setTimeout(() => { paneDrawDue = false; drawPane(); }, 10);
}

function paneToggle(path) {
  pane.focus = path;
  if (pane.expanded.has(path)) {
    pane.expanded.delete(path);
  } else {
    pane.expanded.add(path);
    if (!pane.kids.has(path) && !pane.loading.has(path)) paneLoad(path);
  }
  drawPane();
}

// paneReveal selects the node just opened and expands the pane down to
// it: each ancestor is read when its children are unknown or lack the next
// name; the node's own children are read again when they are known.
function paneReveal(z) {
  const path = z.path;
  pane.selected = path;
  pane.focus = path;
  pane.scrollDue = true;
  if (!z.hidden && z.stat.numChildren === 0 && !pane.loading.has(path)) {
    pane.kids.set(path, { children: [], truncated: false, numChildren: 0, hidden: false });
  } else if (pane.kids.has(path) && !pane.loading.has(path)) {
    paneLoad(path);
  }
  for (const a of ancestorsOf(path)) {
    pane.expanded.add(a);
    const k = pane.kids.get(a), name = path.slice(a === "/" ? 1 : a.length + 1).split("/")[0];
    if (pane.loading.has(a)) continue;
    if (!k || k.error || (!k.hidden && !k.truncated && !k.children.includes(name))) paneLoad(a);
  }
  drawPane();
}

// paneShown lists the expanded nodes the pane shows, the root first.
function paneShown() {
  const out = [];
  const walk = p => {
    if (!pane.expanded.has(p)) return;
    out.push(p);
    const k = pane.kids.get(p);
    if (k && !k.hidden && !k.error) for (const c of k.children) walk(childPath(p, c));
  };
  walk("/");
  return out;
}

// paneRefresh reads again the children of the expanded nodes shown.
function paneRefresh() {
  paneLive.busy = true;
  paneLive.at = Date.now();
  paneLive.due = false;
  return Promise.all(paneShown().slice(0, PANE_REFRESH_MAX).map(paneLoad)).finally(() => { paneLive.busy = false; });
}

document.addEventListener("zk-state", e => {
  const self = e.detail.members.find(m => m.self), s = self && self.status;
  if (!s) return;
  const sig = [s.znodes, s.lastZxid].join(",");
  if (sig !== paneLive.sig) { paneLive.due = paneLive.sig !== ""; paneLive.sig = sig; }
  if (paneLive.due && !paneLive.busy && Date.now() - paneLive.at >= PANE_EVERY_MS) paneRefresh();
});

// paneKey: Up/Down move, Home/End go to the first and last item,
// Right expands (or goes to the first child), Left collapses (or goes to
// the parent), Enter and Space toggle; Enter also opens the node.
function paneKey(ev) {
  const li = ev.target.closest('li[role="treeitem"]');
  if (!li || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const items = [...document.querySelectorAll('#treepane li[role="treeitem"]')];
  const i = items.indexOf(li), path = li.dataset.path, open = li.getAttribute("aria-expanded");
  let to = null;
  switch (ev.key) {
    case "Enter":
      if (open !== null) paneToggle(path);
      go(path);
      break;
    case " ":
      if (open !== null) paneToggle(path);
      break;
    case "ArrowDown": to = items[i + 1]; break;
    case "ArrowUp": to = items[i - 1]; break;
    case "Home": to = items[0]; break;
    case "End": to = items[items.length - 1]; break;
    case "ArrowRight":
      if (open === "false") paneToggle(path);
      else if (open === "true") to = li.querySelector('li[role="treeitem"]');
      break;
    case "ArrowLeft":
      if (open === "true") paneToggle(path);
      else to = li.parentElement.closest('li[role="treeitem"]');
      break;
    default:
      return;
  }
  ev.preventDefault();
  if (to) to.focus(); // focusin moves the tab stop
}

function setupPane() {
  if (!document.querySelector('link[href="/console/treepane.css"]')) {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/console/treepane.css";
    document.head.appendChild(css);
  }
  const ul = document.getElementById("treepane");
  ul.addEventListener("keydown", paneKey);
  ul.addEventListener("focusin", ev => {
    const li = ev.target.closest('li[role="treeitem"]');
    if (!li) return;
    pane.focus = li.dataset.path;
    for (const x of ul.querySelectorAll('li[role="treeitem"]')) x.tabIndex = x === li ? 0 : -1;
  });
  // Another Authorization may read other children: what was read goes,
  // and the nodes shown are read again.
  document.getElementById("auth").addEventListener("change", () => {
    const shown = paneShown();
    pane.kids.clear();
    shown.forEach(paneLoad);
    drawPane();
  });
  paneLoad("/");
  drawPane();
}

function setupTree() {
  setupPane();
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
