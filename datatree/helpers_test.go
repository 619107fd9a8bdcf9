package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// env drives a Tree with increasing zxids and times, like the consensus
// layer would.
type env struct {
	t       *testing.T
	tr      *Tree
	zxid    int64
	now     int64
	session int64
	auth    []wire.Id
}

func newEnv(t *testing.T, cfg Config) *env {
	return &env{t: t, tr: New(cfg), now: 1_000_000, session: 0x1234}
}

// txn builds the next transaction.
func (e *env) txn(op wire.Op, body wire.Record) *Txn {
	e.zxid++
	e.now += 10
	return &Txn{Zxid: e.zxid, Time: e.now, Session: e.session, Auth: e.auth, Op: op, Body: body}
}

func (e *env) apply(op wire.Op, body wire.Record) Result { return e.tr.Apply(e.txn(op, body)) }

func createReq(path string, flags int32) *wire.CreateRequest {
	return &wire.CreateRequest{Path: path, Data: []byte("x"), ACL: wire.OpenACLUnsafe, Flags: flags}
}

func (e *env) create(path string, flags int32) Result {
	return e.apply(wire.OpCreate, createReq(path, flags))
}

// mustCreate creates a node and returns its actual path.
func (e *env) mustCreate(path string, flags int32) string {
	e.t.Helper()
	r := e.create(path, flags)
	require.NoError(e.t, r.Err, "create %s", path)
	return r.Path
}

func (e *env) createACL(path string, acl []wire.ACL) {
	e.t.Helper()
	r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: path, ACL: acl})
	require.NoError(e.t, r.Err, "create %s", path)
}

func (e *env) del(path string, version int32) Result {
	return e.apply(wire.OpDelete, &wire.DeleteRequest{Path: path, Version: version})
}

func (e *env) setData(path string, data []byte, version int32) Result {
	return e.apply(wire.OpSetData, &wire.SetDataRequest{Path: path, Data: data, Version: version})
}

func (e *env) setACL(path string, acl []wire.ACL, version int32) Result {
	return e.apply(wire.OpSetACL, &wire.SetACLRequest{Path: path, ACL: acl, Version: version})
}

func (e *env) stat(path string) wire.Stat {
	e.t.Helper()
	st, err := e.tr.Stat(path)
	require.NoError(e.t, err, "stat %s", path)
	return st
}

// dump captures everything observable about a tree, for equality checks.
type dumpEntry struct {
	Path string
	Stat wire.Stat
	Data []byte
	ACL  []wire.ACL
}

type treeDump struct {
	Nodes      []dumpEntry
	NodeCount  int
	DataSize   int64
	Ephemerals map[int64][]string
	EphCount   int
	Candidates []string
	Snapshot   []byte
}

func dumpTree(t *testing.T, tr *Tree) treeDump {
	t.Helper()
	d := treeDump{
		NodeCount: tr.NodeCount(), DataSize: tr.ApproximateDataSize(),
		Ephemerals: tr.EphemeralSessions(), EphCount: tr.EphemeralCount(),
		Candidates: tr.ContainerCandidates(1<<50, 1),
	}
	tr.Walk(func(p string, st wire.Stat) {
		data, st2, err := tr.GetData(p)
		require.NoError(t, err)
		require.Equal(t, st, st2)
		acl, _, err := tr.GetACL(p)
		require.NoError(t, err)
		d.Nodes = append(d.Nodes, dumpEntry{p, st, data, acl})
	})
	var enc wire.Encoder
	tr.Snapshot(&enc)
	d.Snapshot = enc.Bytes()
	return d
}

func digestACL(perms int32, userPassword string) wire.ACL {
	return wire.ACL{Perms: perms, ID: wire.Id{Scheme: "digest", ID: DigestID(userPassword)}}
}

func digestAuth(userPassword string) wire.Id {
	return wire.Id{Scheme: "digest", ID: DigestID(userPassword)}
}

// withoutACL drops the ACLs events carry, for comparing types and paths.
func withoutACL(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = Event{Type: e.Type, Path: e.Path}
	}
	return out
}
