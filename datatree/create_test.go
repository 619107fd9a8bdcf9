package datatree

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// fixture builds /a, /a/b, /ro (world READ only) with child /ro/kid, /eph
// (ephemeral of session 0x1234) and /ctr (container).
func fixture(t *testing.T, cfg Config) *env {
	e := newEnv(t, cfg)
	e.mustCreate("/a", 0)
	e.mustCreate("/a/b", 0)
	e.mustCreate("/ro", 0)
	e.mustCreate("/ro/kid", 0)
	require.NoError(t, e.setACL("/ro", wire.ReadACLUnsafe, -1).Err)
	e.mustCreate("/eph", wire.FlagEphemeral)
	r := e.apply(wire.OpCreateContainer, createReq("/ctr", wire.FlagContainer))
	require.NoError(t, r.Err)
	return e
}

var badACL = []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "world", ID: "someone"}}}

func TestCreateErrorPrecedence(t *testing.T) {
	type tc struct {
		name    string
		ext     bool
		op      wire.Op
		path    string
		acl     []wire.ACL
		flags   int32
		ttl     int64
		session int64
		want    error
		path2   string // expected created path on success
	}
	open := wire.OpenACLUnsafe
	cases := []tc{
		{name: "flag 7 beats everything", path: "bad", acl: nil, flags: 7, want: wire.CodeBadArguments},
		{name: "negative flag", path: "/x", acl: open, flags: -1, want: wire.CodeBadArguments},
		{name: "ttl flag disabled beats ttl value", op: wire.OpCreate, path: "bad", flags: 5, want: wire.CodeUnimplemented},
		{name: "createTTL disabled", op: wire.OpCreateTTL, path: "/x", acl: open, flags: 5, ttl: 10, want: wire.CodeUnimplemented},
		{name: "ttl flag via create", ext: true, op: wire.OpCreate, path: "/x", acl: open, flags: 5, want: wire.CodeBadArguments},
		{name: "ttl flag via create2", ext: true, op: wire.OpCreate2, path: "/x", acl: open, flags: 6, want: wire.CodeBadArguments},
		{name: "ttl flag via createContainer", ext: true, op: wire.OpCreateContainer, path: "/x", acl: open, flags: 5, want: wire.CodeBadArguments},
		{name: "ttl zero", ext: true, op: wire.OpCreateTTL, path: "/x", acl: open, flags: 5, ttl: 0, want: wire.CodeBadArguments},
		{name: "ttl too large", ext: true, op: wire.OpCreateTTL, path: "/x", acl: open, flags: 5, ttl: MaxTTL + 1, want: wire.CodeBadArguments},
		{name: "ttl max", ext: true, op: wire.OpCreateTTL, path: "/x", acl: open, flags: 5, ttl: MaxTTL, path2: "/x"},
		{name: "ttl with persistent flag", ext: true, op: wire.OpCreateTTL, path: "/x", acl: open, flags: 0, ttl: 100, want: wire.CodeBadArguments},
		{name: "createTTL non-ttl flag negative ttl", ext: true, op: wire.OpCreateTTL, path: "/x", acl: open, flags: 0, ttl: -1, want: wire.CodeBadArguments},
		{name: "ttl value beats path", ext: true, op: wire.OpCreateTTL, path: "bad", flags: 5, ttl: -5, want: wire.CodeBadArguments},
		{name: "ephemeral without session beats path", path: "bad", flags: 1, session: -1, want: wire.CodeSessionExpired},
		{name: "no slash beats ACL", path: "bad", acl: nil, want: wire.CodeBadArguments},
		{name: "NUL beats ACL", path: "/a\x00b", acl: nil, want: wire.CodeBadArguments},
		{name: "empty path", path: "", acl: open, want: wire.CodeBadArguments},
		{name: "ACL beats missing parent", path: "/x/y", acl: nil, want: wire.CodeInvalidACL},
		{name: "bad ACL beats missing parent", path: "/x/y", acl: badACL, want: wire.CodeInvalidACL},
		{name: "missing parent", path: "/x/y", acl: open, want: wire.CodeNoNode},
		{name: "relative path has no parent", path: "a/b", acl: open, want: wire.CodeNoNode},
		{name: "parent with trailing slash", path: "/a//b", acl: open, want: wire.CodeNoNode},
		{name: "NOAUTH beats bad full path", path: "/ro/.", acl: open, want: wire.CodeNoAuth},
		{name: "NOAUTH beats NODEEXISTS", path: "/ro/kid", acl: open, want: wire.CodeNoAuth},
		{name: "exists under root", path: "/ro", acl: open, want: wire.CodeNodeExists},
		{name: "dot segment", path: "/a/.", acl: open, want: wire.CodeBadArguments},
		{name: "trailing slash", path: "/a/", acl: open, want: wire.CodeBadArguments},
		{name: "double slash under root", path: "//a", acl: open, want: wire.CodeBadArguments},
		{name: "control char", path: "/a\x01", acl: open, want: wire.CodeBadArguments},
		{name: "exists", path: "/a/b", acl: open, want: wire.CodeNodeExists},
		{name: "root exists", path: "/", acl: open, want: wire.CodeNodeExists},
		{name: "ephemeral parent", path: "/eph/x", acl: open, want: wire.CodeNoChildrenForEphemerals},
		{name: "ephemeral parent, exists first", path: "/eph", acl: open, want: wire.CodeNodeExists},
		{name: "container parent ok", path: "/ctr/x", acl: open, path2: "/ctr/x"},
		{name: "under /zookeeper ok", path: "/zookeeper/mine", acl: open, path2: "/zookeeper/mine"},
		{name: "config is read-only", path: "/zookeeper/config/x", acl: open, want: wire.CodeNoAuth},
		{name: "sequential trailing slash", path: "/a/", acl: open, flags: 2, path2: "/a/0000000001"},
		{name: "sequential under root", path: "/", acl: open, flags: 2, path2: "/0000000004"},
		{name: "sequential ephemeral", path: "/a/s-", acl: open, flags: 3, path2: "/a/s-0000000001"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fixture(t, Config{ExtendedTypesEnabled: c.ext})
			op := c.op
			if op == 0 {
				op = wire.OpCreate
			}
			if c.session == -1 {
				e.session = 0
			}
			var body wire.Record = &wire.CreateRequest{Path: c.path, ACL: c.acl, Flags: c.flags}
			if op == wire.OpCreateTTL {
				body = &wire.CreateTTLRequest{Path: c.path, ACL: c.acl, Flags: c.flags, TTL: c.ttl}
			}
			before := dumpTree(t, e.tr)
			r := e.apply(op, body)
			if c.want != nil {
				require.Equal(t, c.want, r.Err)
				require.Empty(t, r.Events)
				require.Equal(t, before, dumpTree(t, e.tr), "failed create changed the tree")
				return
			}
			require.NoError(t, r.Err)
			require.Equal(t, c.path2, r.Path)
			require.True(t, e.tr.Exists(c.path2))
		})
	}
}

func TestInvalidACLs(t *testing.T) {
	ip := func(id string) []wire.ACL {
		return []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: id}}}
	}
	dg := func(id string) []wire.ACL {
		return []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "digest", ID: id}}}
	}
	cases := []struct {
		name string
		acl  []wire.ACL
		auth []wire.Id
		ok   bool
	}{
		{"nil", nil, nil, false},
		{"empty", []wire.ACL{}, nil, false},
		{"world anyone", wire.OpenACLUnsafe, nil, true},
		{"world other", badACL, nil, false},
		{"unknown scheme", []wire.ACL{{Perms: 1, ID: wire.Id{Scheme: "foo", ID: "x"}}}, nil, false},
		{"super scheme", []wire.ACL{{Perms: 1, ID: wire.Id{Scheme: "super", ID: ""}}}, nil, false},
		{"sasl not registered", []wire.ACL{{Perms: 1, ID: wire.Id{Scheme: "sasl", ID: "u"}}}, nil, false},
		{"digest ok", dg("u:h"), nil, true},
		{"digest trailing colon ok", dg("u:h:"), nil, true},
		{"digest leading colon ok", dg(":h"), nil, true},
		{"digest no colon", dg("uh"), nil, false},
		{"digest empty hash", dg("u:"), nil, false},
		{"digest two colons", dg("u:h:x"), nil, false},
		{"digest empty", dg(""), nil, false},
		{"ip ok", ip("10.1.2.3"), nil, true},
		{"ip prefix ok", ip("10.0.0.0/8"), nil, true},
		{"ip prefix 0", ip("0.0.0.0/0"), nil, true},
		{"ip prefix 32", ip("1.2.3.4/32"), nil, true},
		{"ip prefix 33", ip("1.2.3.4/33"), nil, false},
		{"ip prefix negative", ip("1.2.3.4/-1"), nil, false},
		{"ip prefix plus sign", ip("1.2.3.4/+8"), nil, true},
		{"ip prefix empty", ip("1.2.3.4/"), nil, false},
		{"ip three parts", ip("1.2.3"), nil, false},
		{"ip five parts", ip("1.2.3.4.5"), nil, false},
		{"ip octet 256", ip("1.2.3.256"), nil, false},
		{"ip hostname", ip("localhost"), nil, false},
		{"ip v6 (not in 3.8)", ip("::1"), nil, false},
		{"auth without ids", wire.CreatorAllACL, nil, false},
		{"auth with ip only", wire.CreatorAllACL, []wire.Id{{Scheme: "ip", ID: "127.0.0.1"}}, false},
		{"auth with super only", wire.CreatorAllACL, []wire.Id{{Scheme: "super"}}, false},
		{"auth with digest", wire.CreatorAllACL, []wire.Id{digestAuth("u:p")}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Config{})
			e.auth = c.auth
			r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/n", ACL: c.acl})
			r2 := e.setACL("/zookeeper/quota", c.acl, -1)
			if c.ok {
				require.NoError(t, r.Err)
				require.NoError(t, r2.Err)
			} else {
				require.Equal(t, wire.CodeInvalidACL, r.Err)
				require.Equal(t, wire.CodeInvalidACL, r2.Err)
			}
		})
	}
}

func TestAuthACLExpansion(t *testing.T) {
	e := newEnv(t, Config{})
	e.auth = []wire.Id{
		{Scheme: "ip", ID: "127.0.0.1"},
		digestAuth("alice:pw"),
		{Scheme: "super", ID: ""},
		digestAuth("bob:pw"),
	}
	acl := []wire.ACL{
		{Perms: wire.PermRead | wire.PermAdmin, ID: wire.Id{Scheme: "auth", ID: "ignored"}},
		{Perms: wire.PermAll, ID: wire.AnyoneID},
		{Perms: wire.PermAll, ID: wire.AnyoneID}, // duplicate removed
	}
	e.createACL("/n", acl)
	got, _, err := e.tr.GetACL("/n")
	require.NoError(t, err)
	require.Equal(t, []wire.ACL{
		{Perms: wire.PermRead | wire.PermAdmin, ID: digestAuth("alice:pw")},
		{Perms: wire.PermRead | wire.PermAdmin, ID: digestAuth("bob:pw")},
		{Perms: wire.PermAll, ID: wire.AnyoneID},
	}, got)
}

func TestSequentialNumbering(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	e.mustCreate("/p/a", 0)
	require.NoError(t, e.del("/p/a", -1).Err)
	require.Equal(t, "/p/x-0000000001", e.mustCreate("/p/x-", 2), "deletes never decrement")
	require.Equal(t, "/p/x-0000000002", e.mustCreate("/p/x-", 3))
	require.Equal(t, "/p/0000000003", e.mustCreate("/p/", 2))
	require.Equal(t, "/p/y0000000004", e.mustCreate("/p/y", 2))
	// A failed create does not consume a number.
	require.Equal(t, wire.CodeInvalidACL, e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/p/z", Flags: 2}).Err)
	require.Equal(t, "/p/z0000000005", e.mustCreate("/p/z", 2))
}

func TestSequentialOverflow(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/p", 0)
	p := e.tr.lookup("/p")
	p.setCversion(math.MaxInt32 - 1)
	require.Equal(t, "/p/s2147483646", e.mustCreate("/p/s", 2))
	require.Equal(t, int32(math.MaxInt32), p.cversion())
	pz := p.pzxid()
	// The counter would wrap to MinInt32, which is not larger, so
	// DataTree.createNode keeps cversion and pzxid; the node is still added.
	require.Equal(t, "/p/s2147483647", e.mustCreate("/p/s", 2))
	require.Equal(t, int32(math.MaxInt32), p.cversion())
	require.Equal(t, pz, p.pzxid())
	require.Equal(t, wire.CodeNodeExists, e.create("/p/s", 2).Err)
	p.setCversion(-5)
	require.Equal(t, "/p/n-000000005", e.mustCreate("/p/n", 2), "%010d of a negative counter")
}

func TestCreateFlagsAndTypes(t *testing.T) {
	e := newEnv(t, Config{ExtendedTypesEnabled: true})
	e.session = 0x77
	cases := []struct {
		op        wire.Op
		path      string
		flags     int32
		ttl       int64
		wantPath  string
		wantKind  kind
		wantOwner int64 // stored
		served    int64
	}{
		{wire.OpCreate, "/p", 0, -1, "/p", kindPersistent, 0, 0},
		{wire.OpCreate, "/c4", 4, -1, "/c4", kindPersistent, 0, 0},
		{wire.OpCreate2, "/e", 1, -1, "/e", kindEphemeral, 0x77, 0x77},
		{wire.OpCreate2, "/es", 3, -1, "/es0000000003", kindEphemeral, 0x77, 0x77},
		{wire.OpCreateContainer, "/ct", 4, -1, "/ct", kindContainer, containerOwner, 0},
		{wire.OpCreateContainer, "/ct0", 0, -1, "/ct0", kindContainer, containerOwner, 0},
		{wire.OpCreateContainer, "/cts", 2, -1, "/cts0000000006", kindContainer, containerOwner, 0},
		{wire.OpCreateContainer, "/cte", 1, -1, "/cte", kindContainer, containerOwner, 0},
		{wire.OpCreateTTL, "/t", 5, 500, "/t", kindTTL, -0x0100000000000000 | 500, 0},
		{wire.OpCreateTTL, "/ts", 6, 500, "/ts0000000009", kindTTL, -0x0100000000000000 | 500, 0},
	}
	for _, c := range cases {
		var body wire.Record = createReq(c.path, c.flags)
		if c.op == wire.OpCreateTTL {
			body = &wire.CreateTTLRequest{Path: c.path, ACL: wire.OpenACLUnsafe, Flags: c.flags, TTL: c.ttl}
		}
		r := e.apply(c.op, body)
		require.NoError(t, r.Err, c.path)
		require.Equal(t, c.wantPath, r.Path)
		n := e.tr.lookup(c.wantPath)
		require.Equal(t, c.wantOwner, n.owner(), c.path)
		require.Equal(t, c.wantKind, ownerKind(n.owner(), true), c.path)
		require.Equal(t, c.served, r.Stat.EphemeralOwner, c.path)
		require.Equal(t, c.served, e.stat(c.wantPath).EphemeralOwner, c.path)
	}
	require.Equal(t, []string{"/e", "/es0000000003"}, e.tr.Ephemerals(0x77))
	require.Equal(t, 4, e.tr.ContainerCount())
	require.Equal(t, 2, e.tr.TTLCount())
}
