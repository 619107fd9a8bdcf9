// zkraft console: guided scenarios of the lab (shown only when
// /console/api/lab answers, as the lab section). Each scenario drives the
// real lab ensemble through the lab's actions, one step at a time: a step
// acts (kill, partition, write, reconfig...), then waits until the
// ensemble shows what it should (read from /console/api/lab, where the lab
// reports every server's own figures, and /console/api/ensemble), then
// explains what happened in ZAB's terms and in Raft's. The DOM is built
// here, every value set as text.
"use strict";

(() => {
  const API = "/console/api/lab";
  const ENSEMBLE = "/console/api/ensemble";
  const POLL_MS = 250;
  const PHASES = { discovery: "discovery", synchronization: "synchronization", broadcast: "broadcast", restore: "restore" };

  // ---- reading the ensemble --------------------------------------------

  // observe reads the lab's status and this server's ensemble view.
  async function observe() {
    const [lab, ens] = await Promise.all([
      fetch(API, { cache: "no-store" }).then(r => r.ok ? r.json() : Promise.reject(new Error("lab status: " + r.status))),
      fetch(ENSEMBLE, { cache: "no-store" }).then(r => r.ok ? r.json() : null).catch(() => null),
    ]);
    return { lab, ens };
  }

  const server = (o, id) => o.lab.servers.find(s => s.id === id);
  const status = (o, id) => { const s = server(o, id); return s && s.running ? s.status : null; };
  const role = (o, id) => { const s = status(o, id); return s ? s.role : "killed"; };
  const zxidOf = (o, id) => { const s = status(o, id); return s ? s.lastZxid : -1; };
  const hex = z => "0x" + Number(z).toString(16);
  const epochOfZxid = z => Math.floor(z / 4294967296);
  const selfOf = o => o.ens ? o.ens.server : 0;

  // leaderOf is the running server that leads (the one of the highest
  // epoch should two say so for a moment), 0 with none.
  function leaderOf(o) {
    let best = null;
    for (const s of o.lab.servers) {
      if (s.running && s.status && s.status.role === "leader" && (!best || s.status.epoch > best.status.epoch)) best = s;
    }
    return best ? best.id : 0;
  }

  // followers are the running servers that follow the leader.
  function followersOf(o) {
    const l = leaderOf(o);
    return o.lab.servers.filter(s => s.running && s.status && s.status.role === "follower" && s.status.leaderId === l)
      .map(s => s.id);
  }

  // pickFollower picks a follower other than this page's server, so
  // that breaking it leaves this page's figures standing.
  function pickFollower(o) {
    const self = selfOf(o);
    const fs = followersOf(o);
    return fs.find(id => id !== self) || 0;
  }

  // otherOf is the server neither a nor b.
  const otherOf = (o, a, b) => (o.lab.servers.find(s => s.id !== a && s.id !== b) || { id: 0 }).id;

  // healthy: every server runs, none cut off, one leads the others, all
  // are members, all hold the leader's last zxid, and this page's server
  // sees the same leader with a quorum.
  function healthy(o) {
    const l = leaderOf(o);
    if (!l) return false;
    const z = zxidOf(o, l);
    for (const s of o.lab.servers) {
      if (!s.running || s.isolated || !s.status) return false;
      if (s.id !== l && (s.status.role !== "follower" || s.status.leaderId !== l)) return false;
      if (s.status.lastZxid !== z) return false;
    }
    if ((o.lab.members || []).length !== o.lab.servers.length) return false;
    return !!o.ens && o.ens.health.leader === l && o.ens.health.quorum;
  }

  function describe(o) {
    return o.lab.servers.map(s => "server " + s.id + ": " +
      (!s.running ? "killed" : s.status.role + (s.isolated ? " (cut off)" : "") + " at " + hex(s.status.lastZxid))).join("; ");
  }

  // ---- lab actions ---------------------------------------------------------

  function authorization() {
    const f = document.getElementById("lab-auth");
    return (f && f.value) || "digest lab:lab";
  }

  // post runs a lab action and returns the lab status it answers; a
  // refused action throws, with the server's message.
  async function post(action, body) {
    const r = await fetch(API + "/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": authorization() },
      body: JSON.stringify(body || {}),
    });
    const text = await r.text();
    if (!r.ok) {
      let msg = text;
      try { msg = JSON.parse(text).error || text; } catch (e) { /* plain text */ }
      const err = new Error(action + ": " + r.status + " " + msg.trim());
      err.status = r.status;
      throw err;
    }
    return JSON.parse(text);
  }

  // write makes count writes through server id; it returns lastWrite.
  async function write(id, count) {
    const st = await post("write", { id, count });
    return st.lastWrite;
  }

  // restoreAll undoes whatever a scenario (or a failed one) left:
  // heals, restarts killed servers and adds removed ones back.
  async function restoreAll() {
    await post("heal", {});
    let o = await observe();
    for (const s of o.lab.servers) if (!s.running) await post("restart", { id: s.id });
    o = await observe();
    const members = o.lab.members || [];
    for (const s of o.lab.servers) {
      if (members.length && !members.includes(s.id)) {
        await waitFor(x => leaderOf(x) !== 0, 30000);
        await post("add", { id: s.id });
      }
    }
  }

  // ---- the scenarios ---------------------------------------------------------
  // A step: phase, title, act (optional, may set fields of c), until (the
  // condition on an observation), wait (the condition in words), timeout,
  // and the texts, functions of (c, o): zab (what happens in ZAB and why)
  // and raft (the Raft step it maps to).

  const steady = {
    phase: "broadcast", title: "A steady ensemble",
    wait: "one leader, every server following it at the same zxid",
    until: o => healthy(o),
    zab: (c, o) => "Server " + leaderOf(o) + " leads epoch " + status(o, leaderOf(o)).epoch +
      " and every follower holds its last zxid, " + hex(zxidOf(o, leaderOf(o))) + ": the ensemble is in broadcast, " +
      "ZAB's steady phase. Any server answers reads from its own replica; every write goes through the leader.",
    raft: (c, o) => "Raft: server " + leaderOf(o) + " is the leader of term " + status(o, leaderOf(o)).epoch +
      ", and the followers' logs match its log up to index " + status(o, leaderOf(o)).lastLogIndex + ".",
  };

  // begin is every scenario's first step: a steady ensemble, the
  // scenario's servers picked (c.L the leader, c.F a follower not this
  // page's, c.O the third).
  function begin(extra) {
    return Object.assign({}, steady, {
      until: (o, c) => {
        if (!healthy(o)) return false;
        c.L = leaderOf(o); c.F = pickFollower(o); c.O = otherOf(o, c.L, c.F);
        c.E = status(o, c.L).epoch; c.Z = zxidOf(o, c.L);
        return c.F !== 0;
      },
    }, extra || {});
  }

  const finish = (zab, raft) => ({
    phase: "restore", title: "Restored",
    act: async () => { await restoreAll(); },
    wait: "every server running and in step under one leader",
    until: o => healthy(o),
    zab: () => zab,
    raft: () => raft,
  });

  const scenarios = [
    {
      key: "follower-write", title: "A write through a follower",
      blurb: "forwarded to the leader, proposed, acked by a majority, committed, applied, answered",
      steps: [
        begin(),
        {
          phase: "broadcast", title: "The follower forwards the write (REQUEST)",
          act: async c => { c.w = await write(c.F, 1); },
          wait: "the leader holds the write's zxid",
          until: (o, c) => zxidOf(o, c.L) >= c.w.lastZxid,
          zab: c => "A client of follower " + c.F + " set " + "/lab-scenario. A follower never orders a write itself: " +
            "it sends the request to leader " + c.L + " (ZAB's REQUEST), and the leader gives it the next zxid, " +
            hex(c.w.lastZxid) + ": epoch " + epochOfZxid(c.w.lastZxid) + " in the high 32 bits, the count of " +
            "transactions in that epoch in the low 32.",
          raft: () => "Raft: the follower forwards the encoded command to the leader over the election port; the " +
            "leader appends it to its log as an entry of the current term, which is the epoch.",
        },
        {
          phase: "broadcast", title: "Proposed and acknowledged by a majority (PROPOSAL, ACK)",
          wait: "a majority of the servers hold the zxid",
          until: (o, c) => o.lab.servers.filter(s => zxidOf(o, s.id) >= c.w.lastZxid).length * 2 > o.lab.servers.length,
          zab: (c, o) => "The leader sends the transaction to every follower in a PROPOSAL; each logs it and answers " +
            "with an ACK. " + o.lab.servers.filter(s => zxidOf(o, s.id) >= c.w.lastZxid).length + " of " +
            o.lab.servers.length + " servers now hold " + hex(c.w.lastZxid) + ": a majority, so no leader can ever " +
            "be elected without it.",
          raft: () => "Raft: PROPOSAL is AppendEntries and ACK its successful answer, which a follower sends only " +
            "after its log is synced. zkraft counts only copies on disk, the leader's own included once synced.",
        },
        {
          phase: "broadcast", title: "Committed, applied, answered (COMMIT)",
          wait: "the follower applied the zxid",
          until: (o, c) => zxidOf(o, c.F) >= c.w.lastZxid,
          zab: c => "With a quorum of ACKs the leader commits and tells the followers (COMMIT). Follower " + c.F +
            " applied the transaction to its data tree and only then answered its client: " + c.w.ms +
            " ms from the request to the reply, which carried zxid " + hex(c.w.lastZxid) + ".",
          raft: () => "Raft: COMMIT is the leader's commit index, carried by its next AppendEntries (and zkraft's " +
            "commit notice). Every server applies entries up to it in log order, so all apply the same writes in " +
            "the same order.",
        },
        {
          phase: "broadcast", title: "Every replica has it",
          wait: "every server holds the leader's last zxid",
          until: o => healthy(o),
          zab: c => "Server " + c.O + " applied the write as well. A follower that is only slower needs no special " +
            "treatment in broadcast: it catches up with the next messages, and clients on it can call sync to be sure.",
          raft: () => "Raft: all logs match up to the entry and every applied index passed it. Nothing to restore: " +
            "the ensemble never left broadcast.",
        },
      ],
    },
    {
      key: "leader-crash", title: "A leader crash and election",
      blurb: "kill the leader; looking; votes; a new epoch; synchronization; broadcast resumes",
      steps: [
        begin({
          until: (o, c) => {
            if (!healthy(o)) return false;
            c.L = leaderOf(o); c.E = status(o, c.L).epoch; c.Z = zxidOf(o, c.L);
            if (c.L === selfOf(o)) {
              const f = followersOf(o)[0];
              const s = f && server(o, f);
              const err = new Error("This page is on the leader, server " + c.L + ", which this scenario kills: " +
                "open a follower's console to play it.");
              err.link = s ? s.consoleUrl + "?scenario=leader-crash" : "";
              throw err;
            }
            c.seq = o.ens ? o.ens.timeline.reduce((m, ev) => Math.max(m, ev.seq), 0) : 0;
            return true;
          },
          zab: (c, o) => steady.zab(c, o) + " This scenario kills leader " + c.L + " without a word to the others, " +
            "like a power cut.",
        }),
        {
          phase: "discovery", title: "The leader is gone: LOOKING",
          act: async c => { await post("kill", { id: c.L }); },
          wait: "this server stops following " + "the dead leader (goes looking, or already follows a new one)",
          until: (o, c) => !server(o, c.L).running && o.ens &&
            (o.ens.timeline.some(ev => ev.seq > c.seq && (ev.kind === "looking" || ev.kind === "leader")) ||
              (leaderOf(o) !== 0 && leaderOf(o) !== c.L)),
          zab: c => "Leader " + c.L + "'s heartbeats stopped. After the election timeout (a tick or two) each " +
            "follower gives up on it and goes LOOKING: it stops serving clients, since it can no longer be sure its " +
            "data is current, and starts an election (ZAB's discovery begins).",
          raft: () => "Raft: a follower whose heartbeat timeout passes without word from the leader becomes a " +
            "candidate. It first asks for pre-votes, so that a server that is merely cut off cannot push the term up.",
        },
        {
          phase: "discovery", title: "Votes, a new leader, a new epoch",
          wait: "a new leader with a higher epoch",
          until: (o, c) => {
            const n = leaderOf(o);
            if (!n || n === c.L || status(o, n).epoch <= c.E) return false;
            c.N = n; c.E2 = status(o, n).epoch; c.M = otherOf(o, c.L, n);
            return true;
          },
          zab: c => "Each server votes for the candidate with the most recent history (highest epoch, then highest " +
            "zxid), so the winner holds every committed transaction. Server " + c.N + " won and leads epoch " + c.E2 +
            " (was " + c.E + "): a new epoch, larger than any its followers accepted before.",
          raft: c => "Raft: RequestVote. A server grants its vote only to a candidate whose log is at least as up to " +
            "date as its own (last term, then last index), the same rule. The epoch is the term, " + c.E2 +
            "; every failed candidacy spends a term too, so it may jump by more than one.",
        },
        {
          phase: "synchronization", title: "Synchronization with the new leader",
          wait: "the other follower follows the new leader at its last zxid",
          until: (o, c) => role(o, c.M) === "follower" && status(o, c.M).leaderId === c.N &&
            status(o, c.M).epoch === c.E2 && zxidOf(o, c.M) === zxidOf(o, c.N) &&
            status(o, c.N).commitIndex >= status(o, c.N).lastLogIndex,
          zab: c => "Before broadcasting in epoch " + c.E2 + ", leader " + c.N + " makes follower " + c.M +
            "'s history match its own: missing transactions are sent (DIFF), uncommitted extra ones dropped (TRUNC), " +
            "or, if too far behind, a whole snapshot (SNAP). Here " + c.M + " was already up to date, so its DIFF had " +
            "nothing of the old epochs to send.",
          raft: () => "Raft: the new leader appends a no-op entry of its term and replicates it; log matching " +
            "(prevLogIndex and prevLogTerm, backing off after a rejection) makes each follower's log a prefix of " +
            "the leader's. Once the no-op commits, every entry of earlier terms is committed too.",
        },
        {
          phase: "broadcast", title: "Broadcast resumes in the new epoch",
          act: async c => { c.w = await write(c.M, 1); },
          wait: "a write committed with a zxid of the new epoch",
          until: (o, c) => epochOfZxid(c.w.lastZxid) >= c.E2 && zxidOf(o, c.N) >= c.w.lastZxid,
          zab: c => "A write through server " + c.M + " got zxid " + hex(c.w.lastZxid) + ": epoch " +
            epochOfZxid(c.w.lastZxid) + " in the high bits, and a counter that started again from 1 in this epoch " +
            "(now " + (c.w.lastZxid % 4294967296) + "). Zxids only grow across epochs, so any server tells newer " +
            "from older.",
          raft: () => "Raft: the zxid is the entry's term shifted left 32 bits, or'ed with the count of " +
            "transactions of that term; the new leader's no-op takes no zxid.",
        },
        finish("Restarted, the old leader found a leader of a newer epoch and joined it as a follower: it may not " +
          "lead with an older history. A transaction it had logged but not committed would have been truncated " +
          "(TRUNC); the rest came by DIFF.",
        "Raft: the restarted server sees the higher term in the leader's AppendEntries and follows; a conflicting " +
          "suffix of its log would be overwritten by log matching."),
      ],
    },
    {
      key: "partition", title: "A minority partition, then heal",
      blurb: "cut one follower off: it goes looking and cannot write; the heal brings it back",
      steps: [
        begin(),
        {
          phase: "discovery", title: "Cut off, the follower goes LOOKING",
          act: async c => { await post("partition", { id: c.F }); },
          wait: "the cut-off follower goes looking",
          until: (o, c) => role(o, c.F) === "looking",
          zab: c => "Follower " + c.F + " no longer hears leader " + c.L + ". After the election timeout it goes " +
            "LOOKING and stops serving its clients: on its own it cannot know whether the others moved on.",
          raft: () => "Raft: its heartbeat timeout fired and it asks for pre-votes that nobody receives, so it never " +
            "becomes a real candidate and does not raise its term; when it is back it will not disturb the leader.",
        },
        {
          phase: "discovery", title: "A minority cannot write",
          act: async c => {
            try {
              c.w = await write(c.F, 1);
              c.failed = "";
            } catch (e) {
              c.failed = e.message;
            }
          },
          wait: "the write through the cut-off server has failed",
          until: (o, c) => c.failed !== "",
          zab: c => "A write sent to server " + c.F + " failed (" + c.failed + "). It has no leader to forward it to, " +
            "and one server of three is not a quorum. A minority never commits anything, so it can never disagree " +
            "with the majority.",
          raft: () => "Raft: to lead it would need the votes of a majority, 2 of 3, and its requests do not get " +
            "through. zkraft's client port serves nothing while a server knows no leader.",
        },
        {
          phase: "broadcast", title: "The majority goes on",
          act: async c => { c.w = await write(c.L, 20); },
          wait: "the leader and the other follower hold the new writes",
          until: (o, c) => zxidOf(o, c.L) >= c.w.lastZxid && zxidOf(o, c.O) >= c.w.lastZxid,
          zab: (c, o) => "Leader " + c.L + " and follower " + c.O + " are two of three, a quorum: they committed " +
            c.w.written + " more writes, up to " + hex(c.w.lastZxid) + ". Server " + c.F + " is still at " +
            hex(zxidOf(o, c.F)) + ".",
          raft: () => "Raft: an entry commits once a majority of the voters hold it on disk: the leader's copy and " +
            "one follower's are enough.",
        },
        {
          phase: "synchronization", title: "Healed: the follower catches up",
          act: async () => { await post("heal", {}); },
          wait: "the healed server follows the leader again at its last zxid",
          until: (o, c) => role(o, c.F) === "follower" && zxidOf(o, c.F) === zxidOf(o, leaderOf(o)),
          zab: (c, o) => "With the links back, server " + c.F + " hears the leader of the current epoch, follows it " +
            "and receives the transactions it missed (a DIFF); it is at " + hex(zxidOf(o, c.F)) + " and back in " +
            "broadcast.",
          raft: () => "Raft: the leader's AppendEntries to it were rejected at first, its log ending earlier; the " +
            "leader stepped its nextIndex back to where the logs agree and sent the missing entries.",
        },
        finish("Nothing more to undo: the partition is healed.", "Raft: every log matches the leader's."),
      ],
    },
    {
      key: "snapshot", title: "A lagging follower caught up by a snapshot",
      blurb: "a follower away while the leader's log is compacted past it gets the leader's snapshot (SNAP)",
      steps: [
        begin(),
        {
          phase: "discovery", title: "A follower falls out",
          act: async c => { await post("partition", { id: c.F }); },
          wait: "the cut-off follower goes looking",
          until: (o, c) => role(o, c.F) === "looking",
          zab: c => "Follower " + c.F + " is cut off from the others and goes LOOKING. Its log stops at " +
            "index " + c.stop + ".",
          raft: () => "Raft: the leader's AppendEntries to it fail; the leader keeps its nextIndex for when it is back.",
          after: (o, c) => { c.stop = status(o, c.F).lastLogIndex; },
        },
        {
          phase: "broadcast", title: "Many writes while it is away",
          act: async c => {
            // Write until the leader's log is TrailingLogs (and some)
            // beyond the follower's.
            for (let i = 0; i < 10; i++) {
              const o = await observe();
              c.T = o.lab.trailingLogs || 10240;
              const need = status(o, c.F).lastLogIndex + c.T + 300 - status(o, c.L).lastLogIndex;
              if (need <= 100) return;
              c.w = await write(c.L, Math.min(5000, need));
            }
          },
          wait: "the leader's log runs more than TrailingLogs entries past the follower's",
          until: (o, c) => status(o, c.L).lastLogIndex > status(o, c.F).lastLogIndex + c.T,
          zab: (c, o) => "Leader " + c.L + " and follower " + c.O + " committed " +
            (status(o, c.L).lastLogIndex - status(o, c.F).lastLogIndex) + " log entries that server " + c.F +
            " has not seen, up to zxid " + hex(zxidOf(o, c.L)) + ".",
          raft: c => "Raft: a leader does not keep its log forever: after each snapshot it keeps only the last " +
            c.T + " entries behind it (TrailingLogs) for followers that lag.",
        },
        {
          phase: "broadcast", title: "The leader takes a snapshot and compacts its log",
          act: async c => { await post("snapshot", { id: c.L }); },
          wait: "the leader's latest snapshot covers the writes",
          until: (o, c) => { c.S = server(o, c.L).snapshotZxid || 0; return c.S >= c.w.lastZxid; },
          zab: c => "ZooKeeper's servers snapshot their data tree every snapCount transactions, and older " +
            "transaction logs can then be purged. Leader " + c.L + " took a snapshot at zxid " + hex(c.S) +
            " (the lab's \"snapshot now\"), and the entries server " + c.F + " needs next are gone from its log.",
          raft: c => "Raft: a snapshot of the state machine, then log compaction: entries older than the last " + c.T +
            " are deleted, including index " + (c.stop + 1) + ", the next one server " + c.F + " needs.",
        },
        {
          phase: "synchronization", title: "Healed: synchronization by snapshot (SNAP)",
          act: async () => { await post("heal", {}); },
          wait: "the follower installed the leader's snapshot and holds the leader's last zxid",
          until: (o, c) => role(o, c.F) === "follower" && (server(o, c.F).snapshotZxid || 0) >= c.S &&
            zxidOf(o, c.F) === zxidOf(o, leaderOf(o)),
          zab: (c, o) => "Server " + c.F + " needs transactions older than anything in the leader's log, so a DIFF " +
            "is impossible: the leader sent its whole snapshot, ZooKeeper's SNAP, then the transactions after it. " +
            "Server " + c.F + " loaded the snapshot at " + hex(server(o, c.F).snapshotZxid) + " and is at " +
            hex(zxidOf(o, c.F)) + ", back in broadcast.",
          raft: () => "Raft: InstallSnapshot. The follower replaced its state with the leader's snapshot (its " +
            "timeline says snapshot-installed) and then took the entries after it by AppendEntries.",
        },
        finish("Nothing more to undo: the partition is healed.", "Raft: every log matches the leader's."),
      ],
    },
    {
      key: "reconfig", title: "A server removed and added back",
      blurb: "reconfig -remove and -add through the leader; the returning server is synchronized first",
      steps: [
        begin(),
        {
          phase: "broadcast", title: "reconfig -remove",
          act: async c => { await post("remove", { id: c.F }); },
          wait: "the membership without the server, which reports itself removed",
          until: (o, c) => !(o.lab.members || []).includes(c.F) && role(o, c.F) === "removed",
          zab: (c, o) => "A reconfig is a transaction like any other: the leader proposes the new configuration, a " +
            "quorum acks it, and /zookeeper/config now lists servers " + (o.lab.members || []).join(", ") +
            ". With two voters, a quorum is both of them.",
          raft: () => "Raft: RemoveServer, a configuration entry in the log, in force on each server as soon as it " +
            "is appended; its zxid becomes the version= of /zookeeper/config.",
        },
        {
          phase: "broadcast", title: "Writes go on without it",
          act: async c => { c.w = await write(c.L, 5); },
          wait: "the leader holds the new writes, the removed server does not",
          until: (o, c) => zxidOf(o, c.L) >= c.w.lastZxid && zxidOf(o, c.F) < c.w.lastZxid,
          zab: (c, o) => "Server " + c.F + " is still up but out of the ensemble: it receives no proposals and serves " +
            "no clients (srvr says a reconfig removed it). It stays at " + hex(zxidOf(o, c.F)) + " while the " +
            "others reach " + hex(c.w.lastZxid) + ".",
          raft: () => "Raft: the leader sends it no more AppendEntries; its log ends with the entry that removed it.",
        },
        {
          phase: "synchronization", title: "reconfig -add: synchronized, then a voter again",
          act: async c => { await post("add", { id: c.F }); },
          wait: "the server is a member again and follows at the leader's last zxid",
          until: (o, c) => (o.lab.members || []).includes(c.F) && role(o, c.F) === "follower" &&
            zxidOf(o, c.F) === zxidOf(o, leaderOf(o)),
          zab: (c, o) => "Adding it back is another reconfig transaction. Like any server joining, server " + c.F +
            " is synchronized first (DIFF, or SNAP when too far behind), then acks proposals again: it is at " +
            hex(zxidOf(o, c.F)) + ", and a quorum is two of three again.",
          raft: () => "Raft: AddVoter, a configuration entry with the server as a voter, in force once appended; " +
            "the leader starts sending it AppendEntries at once, and it catches up from the leader's log (or an " +
            "InstallSnapshot when the log no longer reaches back far enough).",
        },
        finish("Nothing more to undo: all three servers are members.", "Raft: three voters, every log matching."),
      ],
    },
  ];

  // ---- running a scenario ----------------------------------------------------

  let root, stepsList, panel, nextBtn, stopBtn, autoBox, pauseBox, statusLine, menu;
  let running = null; // { sc, c, aborted, next }

  function sleep(ms) { return new Promise(res => setTimeout(res, ms)); }

  // waitFor polls until cond(observation) is true, and returns it.
  async function waitFor(cond, timeout, run) {
    const end = Date.now() + timeout;
    let last = "";
    for (;;) {
      if (run && run.aborted) throw new Error("stopped");
      let o = null;
      try {
        o = await observe();
      } catch (e) {
        last = e.message; // a console restarting, say: try again
      }
      if (o) {
        try {
          if (cond(o)) return o;
          last = describe(o);
        } catch (e) {
          if (e.link !== undefined) throw e; // the scenario cannot run here
          last = e.message; // figures not there yet (a server restarting)
        }
      }
      if (Date.now() > end) throw new Error("still not there after " + timeout / 1000 + " s (" + last + ")");
      await sleep(POLL_MS);
    }
  }

  // gate waits before the next step: the pause with auto-play, else the
  // next button.
  function gate(run) {
    return new Promise(resolve => {
      run.next = resolve;
      nextBtn.disabled = false;
      if (autoBox.checked) {
        const secs = Math.max(0, Number(pauseBox.value) || 0);
        statusLine.textContent = "auto-play: next step in " + secs + " s";
        setTimeout(resolve, secs * 1000);
      } else {
        statusLine.textContent = "press next when you have read it";
      }
    }).then(() => { nextBtn.disabled = true; run.next = null; });
  }

  function setState(state) {
    root.dataset.state = state;
  }

  function drawSteps(sc) {
    stepsList.replaceChildren(...sc.steps.map((st, i) => {
      const li = document.createElement("li");
      li.dataset.state = "pending";
      li.dataset.phase = st.phase;
      const tag = document.createElement("span");
      tag.className = "sc-phase sc-phase-" + st.phase;
      tag.textContent = PHASES[st.phase];
      const t = document.createElement("span");
      t.textContent = " " + st.title;
      li.append(tag, t);
      li.dataset.index = i;
      return li;
    }));
  }

  function markStep(i, state) {
    const li = stepsList.children[i];
    if (li) li.dataset.state = state;
  }

  function showPanel(step, c, o, i, n) {
    const h = document.createElement("h3");
    const tag = document.createElement("span");
    tag.className = "sc-phase sc-phase-" + step.phase;
    tag.textContent = PHASES[step.phase];
    h.append(tag, document.createTextNode(" Step " + (i + 1) + " of " + n + ": " + step.title));
    const zab = document.createElement("p");
    zab.className = "sc-zab";
    zab.textContent = step.zab(c, o);
    const raft = document.createElement("p");
    raft.className = "sc-raft";
    raft.textContent = step.raft(c, o);
    const seen = document.createElement("p");
    seen.className = "sc-seen hint";
    seen.textContent = "Waited for: " + step.wait + ". Now: " + describe(o) + ".";
    panel.replaceChildren(h, zab, raft, seen);
  }

  function showError(err) {
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = err.message;
    const kids = [p];
    if (err.link) {
      const a = document.createElement("a");
      const href = webURL(err.link);
      if (href) a.href = href;
      a.textContent = "open it on a follower: " + err.link;
      kids.push(a);
    }
    const b = document.createElement("button");
    b.textContent = "restore the ensemble";
    b.id = "scenario-restore";
    b.addEventListener("click", async () => {
      b.disabled = true;
      statusLine.textContent = "restoring…";
      try {
        await restoreAll();
        await waitFor(healthy, 60000);
        statusLine.textContent = "restored";
        setState("idle");
      } catch (e) {
        statusLine.textContent = "restore failed: " + e.message;
      }
      b.disabled = false;
    });
    kids.push(b);
    panel.replaceChildren(...kids);
  }

  // webURL lets only http(s) URLs become links.
  function webURL(u) {
    try {
      const url = new URL(u);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : "";
    } catch (e) {
      return "";
    }
  }

  async function play(sc) {
    if (running) return;
    const run = { sc, c: {}, aborted: false, next: null };
    running = run;
    root.dataset.scenario = sc.key;
    for (const b of menu.querySelectorAll("button")) b.disabled = true;
    stopBtn.disabled = false;
    setState("running");
    drawSteps(sc);
    panel.replaceChildren();
    const n = sc.steps.length;
    try {
      // The write load would keep the figures moving: the scenarios stop it.
      const o0 = await observe();
      if (o0.lab.load && o0.lab.load.clients) await post("load", { clients: 0 });
      for (let i = 0; i < n; i++) {
        const step = sc.steps[i];
        root.dataset.step = i;
        markStep(i, "active");
        if (step.act) {
          statusLine.textContent = "step " + (i + 1) + ": acting…";
          await step.act(run.c);
        }
        if (run.aborted) throw new Error("stopped");
        statusLine.textContent = "step " + (i + 1) + ": waiting for " + step.wait + "…";
        const o = await waitFor(x => step.until(x, run.c), step.timeout || 45000, run);
        if (step.after) step.after(o, run.c);
        markStep(i, "done");
        showPanel(step, run.c, o, i, n);
        if (i === n - 1) break;
        setState("waiting");
        await gate(run);
        if (run.aborted) throw new Error("stopped");
        setState("running");
      }
      setState("done");
      statusLine.textContent = "scenario finished; the ensemble is as it was";
    } catch (e) {
      markStep(Number(root.dataset.step), "failed");
      setState("failed");
      statusLine.textContent = "scenario stopped";
      showError(e);
    } finally {
      running = null;
      nextBtn.disabled = true;
      stopBtn.disabled = true;
      for (const b of menu.querySelectorAll("button")) b.disabled = false;
    }
  }

  // ---- the section -----------------------------------------------------------

  function build(section) {
    root = section;
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/console/scenarios.css";
    document.head.append(css);

    const h2 = document.createElement("h2");
    h2.textContent = "Scenarios ";
    const hint = document.createElement("span");
    hint.className = "hint";
    hint.textContent = "(lab only: each runs itself on this ensemble, stops at every ZAB phase, and puts the ensemble " +
      "back as it found it)";
    h2.append(hint);

    menu = document.createElement("div");
    menu.className = "sc-menu";
    for (const sc of scenarios) {
      const b = document.createElement("button");
      b.dataset.scenario = sc.key;
      b.title = sc.blurb;
      b.textContent = sc.title;
      b.addEventListener("click", () => play(sc));
      menu.append(b);
    }

    const controls = document.createElement("div");
    controls.className = "row";
    const autoLabel = document.createElement("label");
    autoBox = document.createElement("input");
    autoBox.type = "checkbox";
    autoBox.id = "scenario-auto";
    // Ticked while a step waits for next: go on after the pause.
    autoBox.addEventListener("change", () => {
      const run = running;
      if (!autoBox.checked || !run || !run.next) return;
      const secs = Math.max(0, Number(pauseBox.value) || 0);
      statusLine.textContent = "auto-play: next step in " + secs + " s";
      const next = run.next;
      setTimeout(() => { if (run.next === next) next(); }, secs * 1000);
    });
    autoLabel.append(autoBox, document.createTextNode(" auto-play, pausing "));
    pauseBox = document.createElement("input");
    pauseBox.type = "number";
    pauseBox.id = "scenario-pause";
    pauseBox.min = "0";
    pauseBox.step = "0.5";
    pauseBox.value = "6";
    pauseBox.style.width = "4em";
    const secs = document.createElement("span");
    secs.textContent = "s per step";
    nextBtn = document.createElement("button");
    nextBtn.id = "scenario-next";
    nextBtn.textContent = "next ▸";
    nextBtn.disabled = true;
    nextBtn.addEventListener("click", () => { if (running && running.next) running.next(); });
    stopBtn = document.createElement("button");
    stopBtn.id = "scenario-stop";
    stopBtn.textContent = "stop";
    stopBtn.disabled = true;
    stopBtn.addEventListener("click", () => {
      if (!running) return;
      running.aborted = true;
      if (running.next) running.next();
    });
    statusLine = document.createElement("span");
    statusLine.id = "scenario-status";
    statusLine.className = "hint";
    controls.append(autoLabel, pauseBox, secs, nextBtn, stopBtn, statusLine);

    const body = document.createElement("div");
    body.className = "sc-body";
    stepsList = document.createElement("ol");
    stepsList.id = "scenario-steps";
    panel = document.createElement("div");
    panel.id = "scenario-panel";
    panel.setAttribute("aria-live", "polite");
    const intro = document.createElement("p");
    intro.className = "hint";
    intro.textContent = "Pick a scenario. ZAB's phases: discovery (an election and a new epoch), synchronization " +
      "(followers brought to the new leader's history), broadcast (proposals, acks, commits). Each step says what " +
      "ZAB does and the Raft step zkraft takes for it.";
    panel.append(intro);
    body.append(stepsList, panel);

    section.replaceChildren(h2, menu, controls, body);
    setState("idle");

    const want = new URLSearchParams(location.search).get("scenario");
    const sc = scenarios.find(s => s.key === want);
    if (sc) {
      menu.querySelector('button[data-scenario="' + sc.key + '"]').focus();
      section.scrollIntoView();
    }
  }

  fetch(API).then(r => r.ok ? r.json() : null).then(st => {
    if (!st) return; // not a lab: the section stays hidden
    const section = document.getElementById("scenarios");
    if (!section) return;
    build(section);
    section.hidden = false;
  }).catch(() => {});
})();
