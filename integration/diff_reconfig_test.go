package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// steadyTick is the tick (and so the Raft election timeout) of the
// clusters whose tests compare answers request by request: five times the
// harness's 100 ms, so that a loaded 2-core machine does not change leaders
// in the middle of them.
const steadyTick = 500 * time.Millisecond

// reconfigCheckCases are reconfig requests from a client without WRITE on
// /zookeeper/config to a three-member ensemble (ids 1-3) with
// reconfigEnabled; none may change the membership. Fields equal to
// nullMark are sent null, as clients send the lists they leave out.
func reconfigCheckCases() []struct {
	desc string
	req  wire.ReconfigRequest
} {
	const n, future = nullMark, int64(1) << 40
	inc := func(joining, leaving string, version int64) wire.ReconfigRequest {
		return wire.ReconfigRequest{JoiningServers: joining, LeavingServers: leaving, NewMembers: n, CurConfigID: version}
	}
	full := func(members string) wire.ReconfigRequest {
		return wire.ReconfigRequest{JoiningServers: n, LeavingServers: n, NewMembers: members, CurConfigID: -1}
	}
	observer := "server.9=127.0.0.1:1:2:observer;3"
	return []struct {
		desc string
		req  wire.ReconfigRequest
	}{
		{"malformed joining line", inc("some thing", n, -1)},
		{"future config version", inc(n, "1", future)},
		{"malformed line and future version", inc("some thing", n, future)},
		{"valid observer joins", inc(observer, n, -1)},
		{"nothing to change", inc(n, n, -1)},
		{"leaving id not a number", inc(n, "abc", -1)},
		{"joining id not a number", inc("server.x=127.0.0.1:1:2;3", n, -1)},
		{"joining line without client port", inc("server.9=127.0.0.1:1:2:observer", n, -1)},
		{"joining line with bad port", inc("server.9=127.0.0.1:x:2;3", n, -1)},
		{"leaving two of three", inc(n, "1,2", -1)},
		{"leaving list with blanks", inc(n, " 3 , ,", -1)},
		{"empty non-null newMembers", full(emptyMark)},
		{"newMembers unknown key", full("foo=bar")},
		{"newMembers id not a number", full("server.x=127.0.0.1:1:2")},
		{"newMembers observers only", full("server.1=127.0.0.1:1:2:observer")},
		{"newMembers wins over joining", wire.ReconfigRequest{JoiningServers: "server.x=127.0.0.1:1:2;3", LeavingServers: n, NewMembers: emptyMark, CurConfigID: -1}},
		{"null newMembers: joining counts", wire.ReconfigRequest{JoiningServers: "server.x=127.0.0.1:1:2;3", LeavingServers: n, NewMembers: n, CurConfigID: -1}},
	}
}

// runReconfigChecks sends every case from one unauthenticated session and
// returns one line per case: the code, and whether the reply's zxid is a
// new one (ZooKeeper logs every refused reconfig as an error txn). addr
// gives the server to use; a case whose connection is lost, or whose
// error could not be logged (the leader changed under a loaded machine), is
// sent again on a new session, at most three times.
func runReconfigChecks(t *testing.T, addr func() string) []string {
	var c *rawClient
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	var out []string
	for _, tc := range reconfigCheckCases() {
		var line string
		for attempt := 1; attempt <= 3; attempt++ {
			if c == nil {
				var err error
				if c, err = connectRaw(addr(), 30000); err != nil {
					t.Fatalf("connect: %v", err)
				}
			}
			before := int64(-1)
			if rep, err := c.CallXid(wire.XidPing, wire.OpPing, nil, nil); err == nil {
				before = rep.Hdr.Zxid
			}
			xid := c.NextXid()
			err := c.WriteRaw(frame(xid, wire.OpReconfig, withNulls(&tc.req)))
			var rep rawReply
			if err == nil {
				rep, err = c.ReadReply(xid)
			}
			if err != nil {
				line = fmt.Sprintf("%s -> %v", tc.desc, rawErr(err))
			} else {
				line = fmt.Sprintf("%s -> %s newZxid=%v", tc.desc, codeName(rep.Hdr.Err), before >= 0 && rep.Hdr.Zxid > before)
			}
			if err == nil && before >= 0 && rep.Hdr.Zxid > before {
				break
			}
			t.Logf("%s on %s, attempt %d: %s", tc.desc, c.addr, attempt, line)
			c.Close()
			c = nil
		}
		out = append(out, line)
	}
	return out
}

// ZooKeeper checks a reconfig's arguments and version before its ACL
// (PrepRequestProcessor), so a client without WRITE on /zookeeper/config
// hears of a malformed request or a stale version first: kazoo's
// TestReconfig relies on it. The same requests go to a three-server
// Apache ZooKeeper 3.8 ensemble and a three-server zkraft cluster.
func TestDiffReconfig_CheckOrder(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	ens, err := realzk.StartEnsemble(t.TempDir(), 3, realzk.Options{ExtraConfig: map[string]string{"reconfigEnabled": "true"}})
	if err != nil {
		t.Fatalf("start Apache ZooKeeper ensemble: %v", err)
	}
	defer ens.Stop()
	want := runReconfigChecks(t, func() string { return ens.Addrs()[0] })

	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		cfg.ReconfigEnabled = true
		cfg.TickTime = steadyTick
	}))
	got := runReconfigChecks(t, func() string { return c.Servers[c.WaitForLeader()].Addr() })
	if d := unifiedDiff(want, got, "zookeeper", "zkraft"); d != "" {
		t.Errorf("reconfig answers differ:\n%s", d)
	} else {
		t.Logf("both servers answer:\n%s", strings.Join(want, "\n"))
	}
}
