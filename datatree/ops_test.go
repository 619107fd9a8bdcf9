package datatree

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestDeleteErrorPrecedence(t *testing.T) {
	cases := []struct {
		path    string
		version int32
		want    error
	}{
		{"/", -1, wire.CodeBadArguments},
		{"/zookeeper", -1, wire.CodeBadArguments},
		{"/zookeeper/quota", -1, wire.CodeBadArguments},
		{"/zookeeper/config", -1, wire.CodeBadArguments},
		{"noslash", -1, wire.CodeBadArguments},
		{"", -1, wire.CodeBadArguments},
		{"/a\x00", -1, wire.CodeBadArguments},
		{"/x/y", 7, wire.CodeNoNode},        // parent missing
		{"/ro/missing", 7, wire.CodeNoAuth}, // DELETE on parent before existence
		{"/ro/kid", -1, wire.CodeNoAuth},    // READ-only parent
		{"/a/missing", 7, wire.CodeNoNode},  // existence before version
		{"/a/", -1, wire.CodeNoNode},        // not a node
		{"/a", 7, wire.CodeBadVersion},      // version before children
		{"/a", -1, wire.CodeNotEmpty},       // has /a/b
		{"/a/b", 1, wire.CodeBadVersion},
		{"/a/b", 0, nil},
		{"/zookeeper/config/x", -1, wire.CodeNoAuth}, // parent READ-only: DELETE checked first
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			e := fixture(t, Config{})
			before := dumpTree(t, e.tr)
			r := e.del(c.path, c.version)
			require.Equal(t, c.want, r.Err)
			if c.want != nil {
				require.Equal(t, before, dumpTree(t, e.tr))
				require.Empty(t, r.Events)
			}
		})
	}
}

func TestSetDataErrorPrecedence(t *testing.T) {
	cases := []struct {
		path    string
		version int32
		want    error
	}{
		{"bad", -1, wire.CodeBadArguments},
		{"/a/", -1, wire.CodeBadArguments}, // validated before lookup
		{"/a/./b", -1, wire.CodeBadArguments},
		{"/missing", 3, wire.CodeNoNode},
		{"/ro", 9, wire.CodeNoAuth}, // WRITE before version
		{"/zookeeper/config", -1, wire.CodeNoAuth},
		{"/a", 9, wire.CodeBadVersion},
		{"/a", 0, nil},
		{"/", -1, nil}, // the root may be written
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			e := fixture(t, Config{})
			before := dumpTree(t, e.tr)
			r := e.setData(c.path, []byte("new"), c.version)
			require.Equal(t, c.want, r.Err)
			if c.want != nil {
				require.Equal(t, before, dumpTree(t, e.tr))
			}
		})
	}
}

func TestSetACLErrorPrecedence(t *testing.T) {
	open := wire.OpenACLUnsafe
	cases := []struct {
		name    string
		path    string
		acl     []wire.ACL
		version int32
		want    error
	}{
		{"bad path beats ACL", "bad", nil, -1, wire.CodeBadArguments},
		{"ACL beats missing", "/missing", nil, -1, wire.CodeInvalidACL},
		{"missing", "/missing", open, 5, wire.CodeNoNode},
		{"ADMIN beats aversion", "/ro", open, 5, wire.CodeNoAuth},
		{"aversion", "/a", open, 1, wire.CodeBadVersion},
		{"data version is not aversion", "/a", open, 0, nil},
		{"config aversion is -1 and needs ADMIN", "/zookeeper/config", open, -1, wire.CodeNoAuth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fixture(t, Config{})
			require.NoError(t, e.setData("/a", nil, -1).Err) // version 1, aversion 0
			before := dumpTree(t, e.tr)
			r := e.setACL(c.path, c.acl, c.version)
			require.Equal(t, c.want, r.Err)
			if c.want != nil {
				require.Equal(t, before, dumpTree(t, e.tr))
			}
		})
	}
}

func TestApplyMisuse(t *testing.T) {
	e := newEnv(t, Config{})
	require.Equal(t, wire.CodeMarshallingError, e.tr.Apply(nil).Err)
	require.Equal(t, wire.CodeMarshallingError, e.apply(wire.OpCreate, &wire.DeleteRequest{Path: "/x"}).Err)
	require.Equal(t, wire.CodeMarshallingError, e.apply(wire.OpDelete, nil).Err)
	require.Equal(t, wire.CodeMarshallingError, e.apply(wire.OpMulti, nil).Err)
	require.Equal(t, wire.CodeUnimplemented, e.apply(wire.OpCheck, &wire.CheckVersionRequest{Path: "/", Version: -1}).Err)
	require.Equal(t, wire.CodeUnimplemented, e.apply(wire.OpGetData, &wire.PathWatchRequest{Path: "/"}).Err)
	require.Equal(t, wire.CodeUnimplemented, e.apply(wire.Op(999), nil).Err)
}

func TestApproximateDataSizeAndCounts(t *testing.T) {
	e := newEnv(t, Config{})
	base := e.tr.ApproximateDataSize()
	require.NoError(t, e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/ab", Data: []byte("12345"), ACL: wire.OpenACLUnsafe}).Err)
	require.Equal(t, base+3+5, e.tr.ApproximateDataSize())
	require.Equal(t, 6, e.tr.NodeCount())
	require.NoError(t, e.setData("/ab", []byte("1"), -1).Err)
	require.Equal(t, base+3+1, e.tr.ApproximateDataSize())
	// Path length counts UTF-16 units like Java's String.length().
	require.NoError(t, e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/é€", ACL: wire.OpenACLUnsafe}).Err)
	require.Equal(t, base+3+1+3, e.tr.ApproximateDataSize())
	require.NoError(t, e.setData("/", []byte("rootdata"), -1).Err)
	require.Equal(t, base+3+1+3+8, e.tr.ApproximateDataSize())
	require.NoError(t, e.del("/ab", -1).Err)
	require.NoError(t, e.del("/é€", -1).Err)
	require.Equal(t, base+8, e.tr.ApproximateDataSize())
	require.Equal(t, 5, e.tr.NodeCount())
}

func TestAllChildrenNumber(t *testing.T) {
	e := newEnv(t, Config{})
	for _, p := range []string{"/a", "/a/b", "/a/b/c", "/a/d", "/ab", "/zookeeper/q"} {
		e.mustCreate(p, 0)
	}
	for path, want := range map[string]int32{
		"/": 9, "/a": 3, "/a/b": 1, "/a/b/c": 0, "/ab": 0, "/zookeeper": 3, "": 10,
	} {
		n, err := e.tr.AllChildrenNumber(path)
		require.NoError(t, err)
		require.Equal(t, want, n, path)
	}
}
