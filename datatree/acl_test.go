package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestDigestID(t *testing.T) {
	// The superDigest used by go-zookeeper's Java test harness.
	require.Equal(t, "super:D/InIHSb7yEEbrWz8b9l71RjZJU=", DigestID("super:test"))
	require.Equal(t, "user:", DigestID("user")[:5])
	require.Equal(t, "a:", DigestID("a:b:c")[:2], "user is the part before the first colon")
	require.Equal(t, DigestID(""), ":2jmj7l5rSw0yVb/vlWAYkK/YBwk=")
}

func TestDigestValid(t *testing.T) {
	for id, want := range map[string]bool{
		"u:h": true, "u:h:": true, "u:h::": true, ":h": true,
		"u:": false, "uh": false, "u:h:x": false, "": false, ":": false, "::": false, "u::h": false,
	} {
		require.Equal(t, want, digestValid(id), "%q", id)
	}
}

func TestIPMatches(t *testing.T) {
	cases := []struct {
		client, acl string
		want        bool
	}{
		{"10.0.0.1", "10.0.0.1", true},
		{"10.0.0.2", "10.0.0.1", false},
		{"10.1.2.3", "10.0.0.0/8", true},
		{"11.0.0.1", "10.0.0.0/8", false},
		{"10.0.0.77", "10.0.0.1/24", true}, // both sides are masked
		{"10.0.1.77", "10.0.0.1/24", false},
		{"192.168.5.9", "192.168.4.0/23", true},
		{"192.168.6.9", "192.168.4.0/23", false},
		{"1.2.3.4", "0.0.0.0/0", true},
		{"1.2.3.4", "9.9.9.9/0", true},
		{"1.2.3.4", "1.2.3.4/32", true},
		{"1.2.3.5", "1.2.3.4/31", true},
		{"1.2.3.6", "1.2.3.4/31", false},
		{"1.2.3.4", "1.2.3.4/33", false},
		{"1.2.3.4", "1.2.3.4/x", false},
		{"1.2.3.4", "1.2.3.4/+32", true},
		{"0:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:1", false}, // 3.8 ip scheme is IPv4-only
		{"localhost", "127.0.0.1", false},
		{"127.0.0.1", "127.0.0.01", true}, // parseInt accepts leading zeros
	}
	for _, c := range cases {
		require.Equal(t, c.want, ipMatches(c.client, c.acl), "%s vs %s", c.client, c.acl)
	}
}

func TestCheckACL(t *testing.T) {
	alice := digestAuth("alice:pw")
	ipID := wire.Id{Scheme: "ip", ID: "10.1.2.3"}
	super := wire.Id{Scheme: "super"}
	aliceACL := []wire.ACL{digestACL(wire.PermRead|wire.PermWrite, "alice:pw")}
	netACL := []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: "10.0.0.0/8"}}}
	cases := []struct {
		name string
		acl  []wire.ACL
		perm int32
		auth []wire.Id
		want error
	}{
		{"empty ACL allows", []wire.ACL{}, wire.PermAdmin, nil, nil},
		{"world read", wire.ReadACLUnsafe, wire.PermRead, nil, nil},
		{"world read denies write", wire.ReadACLUnsafe, wire.PermWrite, nil, wire.CodeNoAuth},
		{"super beats everything", wire.ReadACLUnsafe, wire.PermAdmin, []wire.Id{super}, nil},
		{"super on digest ACL", aliceACL, wire.PermDelete, []wire.Id{super}, nil},
		{"digest match", aliceACL, wire.PermWrite, []wire.Id{ipID, alice}, nil},
		{"digest perm missing", aliceACL, wire.PermDelete, []wire.Id{alice}, wire.CodeNoAuth},
		{"digest other user", aliceACL, wire.PermRead, []wire.Id{digestAuth("bob:pw")}, wire.CodeNoAuth},
		{"digest wrong password", aliceACL, wire.PermRead, []wire.Id{digestAuth("alice:nope")}, wire.CodeNoAuth},
		{"scheme must match", aliceACL, wire.PermRead, []wire.Id{{Scheme: "ip", ID: DigestID("alice:pw")}}, wire.CodeNoAuth},
		{"no auth", aliceACL, wire.PermRead, nil, wire.CodeNoAuth},
		{"ip prefix", netACL, wire.PermCreate, []wire.Id{ipID}, nil},
		{"ip outside prefix", netACL, wire.PermCreate, []wire.Id{{Scheme: "ip", ID: "11.0.0.1"}}, wire.CodeNoAuth},
		{"second entry grants", []wire.ACL{aliceACL[0], {Perms: wire.PermDelete, ID: wire.AnyoneID}}, wire.PermDelete, nil, nil},
		{"unknown scheme entry skipped", []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "x509", ID: "CN=a"}}}, wire.PermRead, []wire.Id{{Scheme: "x509", ID: "CN=a"}}, wire.CodeNoAuth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, defaultSchemes.checkACL(c.acl, c.perm, c.auth))
		})
	}
}

func TestACLEnforcedOnOps(t *testing.T) {
	e := newEnv(t, Config{})
	alice := []wire.Id{digestAuth("alice:pw")}
	e.auth = alice
	e.createACL("/p", []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "auth"}}})
	e.mustCreate("/p/c", 0) // alice may create
	require.NoError(t, e.tr.CheckACL("/p", wire.PermAdmin, alice))
	require.Equal(t, wire.CodeNoAuth, e.tr.CheckACL("/p", wire.PermRead, nil))

	e.auth = []wire.Id{digestAuth("bob:pw"), {Scheme: "ip", ID: "127.0.0.1"}}
	require.Equal(t, wire.CodeNoAuth, e.create("/p/d", 0).Err)
	require.Equal(t, wire.CodeNoAuth, e.del("/p/c", -1).Err)
	require.Equal(t, wire.CodeNoAuth, e.setData("/p", nil, -1).Err)
	require.Equal(t, wire.CodeNoAuth, e.setACL("/p", wire.OpenACLUnsafe, -1).Err)
	require.NoError(t, e.setData("/p/c", nil, -1).Err, "ACLs are not inherited")

	e.auth = []wire.Id{{Scheme: "super"}, digestAuth("super:test")}
	require.NoError(t, e.setACL("/p", wire.OpenACLUnsafe, -1).Err)
	require.NoError(t, e.del("/p/c", -1).Err)
}

func TestACLTableSharing(t *testing.T) {
	e := newEnv(t, Config{})
	base := e.tr.acls.live()
	custom := []wire.ACL{digestACL(wire.PermAll, "u:p")}
	e.createACL("/a", custom)
	e.createACL("/b", custom)
	require.Equal(t, base+1, e.tr.acls.live(), "identical ACLs are interned once")
	require.NoError(t, e.del("/a", -1).Err)
	require.Equal(t, base+1, e.tr.acls.live())
	e.auth = []wire.Id{digestAuth("u:p")}
	require.NoError(t, e.setACL("/b", wire.OpenACLUnsafe, -1).Err)
	require.Equal(t, base, e.tr.acls.live(), "unused ACLs are released")
	e.createACL("/c", []wire.ACL{digestACL(wire.PermRead, "v:p")})
	require.Equal(t, base+1, e.tr.acls.live())
	require.Len(t, e.tr.acls.entries, base+1, "released slots are reused")
}

func TestFixupACL_NullIDs(t *testing.T) {
	null := wire.NullIDField
	alice := digestAuth("alice:pw")
	cases := []struct {
		acl  []wire.ACL
		want wire.Code
	}{
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "world", ID: null}}}, wire.CodeMarshallingError},
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "digest", ID: null}}}, wire.CodeMarshallingError},
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: null}}}, wire.CodeMarshallingError},
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "nosuch", ID: null}}}, wire.CodeInvalidACL},
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: null, ID: "anyone"}}}, wire.CodeInvalidACL},
		// ZooKeeper checks entries in order: an invalid one before stops it.
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "nosuch", ID: "x"}}, {Perms: wire.PermRead, ID: wire.Id{Scheme: "world", ID: null}}}, wire.CodeInvalidACL},
		// "auth" ignores its id.
		{[]wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "auth", ID: null}}}, wire.CodeOK},
	}
	for _, c := range cases {
		_, err := defaultSchemes.fixupACL(c.acl, []wire.Id{alice})
		require.Equal(t, c.want, wire.CodeOf(err), "%+v", c.acl)
	}
}

// A null ACL id fails a whole multi (ZooKeeper's NullPointerException is
// not a KeeperException), where an invalid ACL fails only its op.
func TestApplyMulti_NullACLIDFailsTheWholeMulti(t *testing.T) {
	e := newEnv(t, Config{})
	nullACL := []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "world", ID: wire.NullIDField}}}
	req := &wire.MultiRequest{Ops: []wire.MultiOp{
		{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: "/ok", ACL: wire.OpenACLUnsafe}},
		{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: "/null", ACL: nullACL}},
	}}
	res := e.apply(wire.OpMulti, req)
	require.Equal(t, wire.CodeMarshallingError, wire.CodeOf(res.Err))
	require.Nil(t, res.Multi)
	_, _, err := e.tr.GetData("/ok")
	require.Equal(t, wire.CodeNoNode, wire.CodeOf(err), "the multi's first create is rolled back")
}
