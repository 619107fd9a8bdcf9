package console

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// rootAuth is the credential the tests' "/" ACL grants ALL.
const rootAuth = "digest root:secret"

// superRoot makes rootAuth's user the ensemble's super user.
var superRoot = integration.WithServerConfig(func(c *server.Config) { c.SuperDigest = datatree.DigestID("root:secret") })

// treeServer starts a server with a console, creates a few nodes through
// a client and returns the console's base URL and the client.
func treeServer(t *testing.T) (string, *zk.Conn) {
	t.Helper()
	s := integration.StartServer(t)
	con := New(s, Options{})
	ts := httptest.NewServer(con)
	t.Cleanup(func() {
		con.CloseStreams()
		ts.Close()
	})
	conn, _ := s.Connect(t)
	for _, p := range []string{"/app", "/app/users", "/app/users/ann", "/app/users/bob", "/app/orders", "/other"} {
		_, err := conn.Create(p, []byte(`{"name":"`+p+`"}`), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	return ts.URL, conn
}

// getJSON GETs url and decodes the answer into v, returning the status.
func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	status, ctype, body := get(t, url)
	require.Equal(t, "application/json", ctype, "%s", body)
	require.NoError(t, json.Unmarshal(body, v), "%s", body)
	return status
}

// TestZnodeJSON reads a node: its data, Stat (zxids and owner in hex,
// times), ACL and children, matching what a client sees.
func TestZnodeJSON(t *testing.T) {
	base, conn := treeServer(t)
	_, want, err := conn.Get("/app")
	require.NoError(t, err)
	var z znodeJSON
	require.Equal(t, http.StatusOK, getJSON(t, base+ZnodePath+"?path=/app", &z))
	require.Equal(t, "/app", z.Path)
	require.Equal(t, `{"name":"/app"}`, string(z.Data))
	require.False(t, z.Truncated)
	require.Equal(t, "0x"+strconv.FormatInt(want.Czxid, 16), z.Stat.Czxid)
	require.Equal(t, "0x"+strconv.FormatInt(want.Pzxid, 16), z.Stat.Pzxid)
	require.Equal(t, want.Mtime, z.Stat.Mtime.UnixMilli())
	require.Equal(t, "0x0", z.Stat.EphemeralOwner)
	require.EqualValues(t, 2, z.Stat.NumChildren)
	require.EqualValues(t, len(`{"name":"/app"}`), z.Stat.DataLength)
	require.Equal(t, []aclJSON{{Perms: "cdrwa", Scheme: "world", ID: "anyone"}}, z.ACL)
	require.Equal(t, []string{"orders", "users"}, z.Children)

	// An ephemeral names its owner; big data is cut at MaxData and says so.
	_, err = conn.Create("/app/eph", bytes.Repeat([]byte("x"), MaxData+10), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, getJSON(t, base+ZnodePath+"?path=/app/eph", &z))
	require.Equal(t, "0x"+strconv.FormatInt(conn.SessionID(), 16), z.Stat.EphemeralOwner)
	require.Len(t, z.Data, MaxData)
	require.True(t, z.Truncated)
	require.EqualValues(t, MaxData+10, z.Stat.DataLength)

	// The raw JSON carries data as base64, as the page decodes it.
	_, _, body := get(t, base+ZnodePath+"?path=/other")
	require.Contains(t, string(body), `"data":"`+base64.StdEncoding.EncodeToString([]byte(`{"name":"/other"}`))+`"`)
}

// TestTreeReadFollowsACL: a node whose ACL grants READ to a user only
// shows its data and children to a request with that user's
// Authorization; others see its Stat and ACL, as exists and getACL show
// them, and a search does not enter it.
func TestTreeReadFollowsACL(t *testing.T) {
	base, conn := treeServer(t)
	_, err := conn.Create("/private", []byte("secret data"), 0, zk.DigestACL(zk.PermAll, "root", "secret"))
	require.NoError(t, err)
	require.NoError(t, conn.AddAuth("digest", []byte("root:secret")))
	_, err = conn.Create("/private/child", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	var z znodeJSON
	require.Equal(t, http.StatusOK, getJSON(t, base+ZnodePath+"?path=/private", &z))
	require.True(t, z.Hidden)
	require.Empty(t, z.Data)
	require.Empty(t, z.Children)
	require.EqualValues(t, 1, z.Stat.NumChildren)
	require.Equal(t, "digest", z.ACL[0].Scheme)
	var r struct{ Paths []string }
	require.Equal(t, http.StatusOK, getJSON(t, base+SearchPath+"?prefix=/priv", &r))
	require.Equal(t, []string{"/private"}, r.Paths)

	req, err := http.NewRequest(http.MethodGet, base+ZnodePath+"?path=/private", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", rootAuth)
	resp, err := httpClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	z = znodeJSON{}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&z))
	require.False(t, z.Hidden)
	require.Equal(t, "secret data", string(z.Data))
	require.Equal(t, []string{"child"}, z.Children)
}

// TestTreeBadPaths: invalid paths are 400 with a message, a missing node
// 404 NONODE; never a panic.
func TestTreeBadPaths(t *testing.T) {
	base, _ := treeServer(t)
	for _, p := range []string{"", "app", "/app/", "/a//b", "/a/./b", "/a/../b", "/a%00b", "/%01"} {
		var e errorJSON
		require.Equal(t, http.StatusBadRequest, getJSON(t, base+ZnodePath+"?path="+p, &e), "path %q", p)
		require.Contains(t, e.Error, "invalid znode path", "path %q", p)
		require.Equal(t, http.StatusBadRequest, getJSON(t, base+ChildrenPath+"?path="+p, &e), "path %q", p)
	}
	var e errorJSON
	require.Equal(t, http.StatusNotFound, getJSON(t, base+ZnodePath+"?path=/missing", &e))
	require.Equal(t, "NONODE", e.Code)
	require.Equal(t, http.StatusBadRequest, getJSON(t, base+SearchPath+"?prefix=nope", &e))
	require.Equal(t, http.StatusBadRequest, getJSON(t, base+SearchPath+"?prefix=/&limit=0", &e))
	require.Equal(t, http.StatusBadRequest, getJSON(t, base+SearchPath+"?prefix=/&limit=x", &e))
}

// TestChildrenAndSearch lists children and searches by prefix, within
// the limit asked for.
func TestChildrenAndSearch(t *testing.T) {
	base, _ := treeServer(t)
	var ch struct {
		Children  []string `json:"children"`
		Truncated bool     `json:"truncated"`
	}
	require.Equal(t, http.StatusOK, getJSON(t, base+ChildrenPath+"?path=/app/users", &ch))
	require.Equal(t, []string{"ann", "bob"}, ch.Children)
	require.False(t, ch.Truncated)

	type result struct {
		Paths     []string `json:"paths"`
		Truncated bool     `json:"truncated"`
		Limit     int      `json:"limit"`
	}
	search := func(q string) result {
		var r result
		require.Equal(t, http.StatusOK, getJSON(t, base+SearchPath+"?"+q, &r), q)
		return r
	}
	require.Equal(t, result{Paths: []string{"/app/users", "/app/users/ann", "/app/users/bob"}, Limit: DefaultSearchLimit},
		search("prefix=/app/us"))
	require.Equal(t, []string{"/app", "/app/orders", "/app/users", "/app/users/ann", "/app/users/bob"},
		search("prefix=/app").Paths, "a node and all below it, in path order")
	r := search("prefix=/app&limit=2")
	require.Equal(t, result{Paths: []string{"/app", "/app/orders"}, Truncated: true, Limit: 2}, r)
	require.Equal(t, MaxSearchLimit, search("prefix=/&limit=999999").Limit)
	require.Empty(t, search("prefix=/nothing").Paths)
	root := search("prefix=/")
	require.Equal(t, "/", root.Paths[0])
	require.Contains(t, root.Paths, "/zookeeper")
}

// TestSessionsTable lists a client's session with its timeout, its
// ephemerals and its watches, and the leader's expiry.
func TestSessionsTable(t *testing.T) {
	base, conn := treeServer(t)
	_, err := conn.Create("/app/lock", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, _, err = conn.GetW("/app/users")
	require.NoError(t, err)
	var st struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	require.Equal(t, http.StatusOK, getJSON(t, base+SessionsPath, &st))
	id := "0x" + strconv.FormatInt(conn.SessionID(), 16)
	var row *sessionJSON
	for i := range st.Sessions {
		if st.Sessions[i].ID == id {
			row = &st.Sessions[i]
		}
	}
	require.NotNil(t, row, "session %s in %+v", id, st.Sessions)
	require.Positive(t, row.Timeout)
	require.True(t, row.Local)
	require.NotNil(t, row.ExpiresAt, "a standalone server leads and tracks expiry")
	require.Equal(t, []string{"/app/lock"}, row.Ephemerals)
	require.Equal(t, []string{"/app/users"}, row.Watches)
}

// post sends a write with auth (none when empty) and returns the status
// and the decoded body.
func post(t *testing.T, url, auth, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := httpClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out) // 401/403 from authorized are plain text
	out["raw"] = string(b)
	return resp.StatusCode, out
}

// TestTreeWrites: writes need the AdminServer's credentials (ALL on "/");
// with them create, set and delete apply as ordinary writes a client sees,
// with version checks answered 409 BADVERSION.
func TestTreeWrites(t *testing.T) {
	base, conn := treeServer(t)
	// "/" grants ALL to root only (and READ to anyone).
	_, err := conn.SetACL("/", append(zk.DigestACL(zk.PermAll, "root", "secret"), zk.WorldACL(zk.PermRead)...), -1)
	require.NoError(t, err)

	status, _ := post(t, base+CreatePath, "", `{"path":"/made","data":"v1"}`)
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = post(t, base+CreatePath, "digest root:wrong", `{"path":"/made","data":"v1"}`)
	require.Equal(t, http.StatusUnauthorized, status, "a wrong password is not verified")
	status, _ = post(t, base+CreatePath, "digest nobody:x", `{"path":"/app/made","data":"v1"}`)
	require.Equal(t, http.StatusUnauthorized, status, "an invented digest user is not verified, even where the ACL is open")
	status, _ = post(t, base+CreatePath, "ip", `{"path":"/app/made","data":"v1"}`)
	require.Equal(t, http.StatusUnauthorized, status, "an address alone does not write")
	exists, _, err := conn.Exists("/made")
	require.NoError(t, err)
	require.False(t, exists, "a refused write changes nothing")
	resp, err := httpClient.Get(base + CreatePath)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	status, out := post(t, base+CreatePath, rootAuth, `{"path":"/made","data":"v1"}`)
	require.Equal(t, http.StatusCreated, status, out["raw"])
	data, stat, err := conn.Get("/made")
	require.NoError(t, err)
	require.Equal(t, "v1", string(data))

	status, out = post(t, base+SetPath, rootAuth, `{"path":"/made","data":"v2","version":`+strconv.Itoa(int(stat.Version)+1)+`}`)
	require.Equal(t, http.StatusConflict, status, out["raw"])
	require.Equal(t, "BADVERSION", out["code"])
	status, out = post(t, base+SetPath, rootAuth, `{"path":"/made","data":"v2","version":0}`)
	require.Equal(t, http.StatusOK, status, out["raw"])
	data, _, err = conn.Get("/made")
	require.NoError(t, err)
	require.Equal(t, "v2", string(data))

	status, out = post(t, base+CreatePath, rootAuth, `{"path":"/made","data":"again"}`)
	require.Equal(t, http.StatusConflict, status)
	require.Equal(t, "NODEEXISTS", out["code"])
	status, out = post(t, base+SetPath, rootAuth, `{"path":"/made","data":"v3"}`)
	require.Equal(t, http.StatusBadRequest, status, "version is required")
	status, out = post(t, base+DeletePath, rootAuth, `{"path":"/app","version":-1}`)
	require.Equal(t, http.StatusConflict, status)
	require.Equal(t, "NOTEMPTY", out["code"])
	status, out = post(t, base+DeletePath, rootAuth, `{"path":"bad","version":-1}`)
	require.Equal(t, http.StatusBadRequest, status, out["raw"])
	status, out = post(t, base+DeletePath, rootAuth, `{"path":"/made","version":0}`)
	require.Equal(t, http.StatusConflict, status, "the set made it version 1")
	status, out = post(t, base+DeletePath, rootAuth, `{"path":"/made","version":1}`)
	require.Equal(t, http.StatusOK, status, out["raw"])
	exists, _, err = conn.Exists("/made")
	require.NoError(t, err)
	require.False(t, exists)

	status, out = post(t, base+CreatePath, rootAuth, `{"path":"/seq-","sequential":true}`)
	require.Equal(t, http.StatusCreated, status, out["raw"])
	require.Regexp(t, `^/seq-\d{10}$`, out["path"], "the sequential suffix")
}

// TestTreeWriteOnFollower writes through a follower's console: the write
// travels to the leader like a client's and every server applies it.
func TestTreeWriteOnFollower(t *testing.T) {
	c := integration.StartCluster(t, 3, superRoot)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases := serveCluster(t, c, time.Second)
	status, out := post(t, bases[follower]+CreatePath, rootAuth, `{"path":"/via-follower","data":"hi"}`)
	require.Equal(t, http.StatusCreated, status, out["raw"])
	conn, _ := c.Connect(t, c.Servers[leader].Addr())
	data, _, err := conn.Get("/via-follower")
	require.NoError(t, err)
	require.Equal(t, "hi", string(data))
	var z znodeJSON
	require.Equal(t, http.StatusOK, getJSON(t, bases[follower]+ZnodePath+"?path=/via-follower", &z),
		"applied on the follower before the answer")
}
