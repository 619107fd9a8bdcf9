// zkraft console, lab section: shown only when /console/api/lab answers
// (a server started by `make lab`); its buttons POST the lab's actions
// with the Authorization typed above them. Every value is set as text.
"use strict";

const LAB = "/console/api/lab";

function labButton(text, action, body) {
  const b = document.createElement("button");
  b.textContent = text;
  b.dataset.action = action;
  b.dataset.id = body.id;
  b.addEventListener("click", () => labPost(action, body));
  return b;
}

// webURL is u as an absolute http(s) URL, or "" for anything else (a
// javascript: or data: URL, or text that is no URL): the server's
// strings are never used as links unchecked.
function webURL(u) {
  try {
    const url = new URL(u);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : "";
  } catch (e) {
    return "";
  }
}

// labDrawn is the server list the table shows: a refresh that finds the
// same list keeps the rows, so that a click on a button is not lost to a
// refresh that replaced it between the press and the release.
let labDrawn = "";

function labDraw(st) {
  const drawing = JSON.stringify(st.servers);
  if (drawing !== labDrawn) {
    labDrawn = drawing;
    labRows(st.servers);
  }
  document.getElementById("lab-links").textContent = st.links.length ?
    "slowed: " + st.links.map(l => l.a + "↔" + l.b + " " + l.delayMs + " ms, loss " + l.loss).join("; ") : "";
  document.getElementById("lab-load").textContent = st.load.clients ?
    st.load.clients + " clients, " + st.load.writes + " writes, " + st.load.errors + " errors" : "no load";
}

function labRows(servers) {
  const tbody = document.querySelector("#lab-servers tbody");
  tbody.replaceChildren();
  for (const s of servers) {
    const tr = document.createElement("tr");
    tr.dataset.id = s.id;
    const state = !s.running ? "killed" : s.isolated ? "partitioned away" : "running";
    const link = document.createElement("a");
    const href = webURL(s.consoleUrl);
    if (href) link.href = href; // anything else is shown, not linked
    link.textContent = s.consoleUrl;
    const acts = document.createElement("td");
    acts.append(labButton("kill", "kill", { id: s.id }), labButton("restart", "restart", { id: s.id }),
      labButton("partition away", "partition", { id: s.id }));
    const cells = [String(s.id), state];
    for (const c of cells) tr.append(el("td", c));
    const lc = document.createElement("td");
    lc.append(link);
    tr.append(lc, el("td", s.clientAddr), acts);
    tbody.append(tr);
  }
}

function labPost(action, body) {
  const result = document.getElementById("lab-result");
  result.textContent = action + "…";
  fetch(LAB + "/" + action, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": document.getElementById("lab-auth").value },
    body: JSON.stringify(body),
  }).then(async r => {
    const text = await r.text();
    if (!r.ok) { result.textContent = action + ": " + r.status + " " + text; return; }
    result.textContent = action + ": done";
    labDraw(JSON.parse(text));
  }).catch(e => { result.textContent = action + ": " + e; });
}

function labRefresh() {
  fetch(LAB).then(r => r.ok ? r.json() : null).then(st => { if (st) labDraw(st); }).catch(() => {});
}

fetch(LAB).then(r => r.ok ? r.json() : null).then(st => {
  if (!st) return; // not a lab: the section stays hidden
  document.getElementById("lab").hidden = false;
  document.getElementById("lab-auth").value = "digest lab:lab";
  const num = id => Number(document.getElementById(id).value);
  document.getElementById("lab-heal").addEventListener("click", () => labPost("heal", {}));
  document.getElementById("lab-link").addEventListener("click", () => labPost("link",
    { a: num("lab-a"), b: num("lab-b"), delayMs: num("lab-delay"), loss: num("lab-loss") }));
  document.getElementById("lab-load-start").addEventListener("click", () => labPost("load", { clients: num("lab-clients") }));
  document.getElementById("lab-load-stop").addEventListener("click", () => labPost("load", { clients: 0 }));
  labDraw(st);
  setInterval(labRefresh, 2000);
}).catch(() => {});
