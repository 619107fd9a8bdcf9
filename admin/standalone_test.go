package admin

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// workload is what the standalone captures saw: two sessions, ephemeral
// and sequential-ephemeral members, a lock, a config node; an exists watch
// on a missing node from both sessions and a data watch on the config.
func workload(t testing.TB, a, b *zk.Conn) {
	t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{"/app", "/app/members"} {
		_, err := a.Create(p, nil, 0, acl)
		require.NoError(t, err)
	}
	_, err := a.Create("/app/config", []byte("v=1"), 0, acl)
	require.NoError(t, err)
	_, err = a.Create("/app/lock", nil, zk.FlagEphemeral, acl)
	require.NoError(t, err)
	_, err = a.Create("/app/members/m-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	require.NoError(t, err)
	_, err = b.Create("/app/members/m-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	require.NoError(t, err)
	for _, c := range []*zk.Conn{a, b} {
		_, _, _, err = c.ExistsW("/app/missing")
		require.NoError(t, err)
	}
	_, _, _, err = a.GetW("/app/config")
	require.NoError(t, err)
}

// standalone starts an in-memory zkraft server with the workload done and
// its AdminServer, and returns the AdminServer's command root.
func standalone(t testing.TB) string {
	t.Helper()
	s := integration.StartServer(t)
	a, _ := s.Connect(t)
	b, _ := s.Connect(t)
	workload(t, a, b)
	return startAdmin(t, s.Server, Options{InitialConfig: "tickTime=2000\nclientPort=2181\n"}) + "/commands/"
}

// TestStandaloneShapesMatchZooKeeper compares every command's JSON (keys,
// nesting, value types) with real ZooKeeper 3.8's after the same workload.
func TestStandaloneShapesMatchZooKeeper(t *testing.T) {
	base := standalone(t)
	for _, c := range commands {
		name := c.names[0]
		t.Run(name, func(t *testing.T) {
			if name == "system_properties" {
				t.Skip("the JVM's properties: zkraft's are its -D flags and the Go runtime's (see docs/adminserver.md)")
			}
			got := getJSON(t, base+name)
			want := capture(t, "standalone-"+name)
			switch name {
			case "monitor":
				compareMonitor(t, got, want)
			case "server_stats", "stats":
				require.Equal(t, keys(want), keys(got))
				for _, k := range []string{"server_stats", "client_response"} {
					g, _ := got.Get(k)
					w, _ := want.Get(k)
					require.Equal(t, sortedKeys(w.(Object)), sortedKeys(g.(Object)), k)
				}
			default:
				require.Equal(t, shape(want), shape(got))
			}
		})
	}
}

// compareMonitor checks that monitor serves mntr's rows with JSON types,
// and the same type as ZooKeeper for every key both have.
func compareMonitor(t *testing.T, got, want Object) {
	t.Helper()
	for _, k := range []string{"version", "server_state", "znode_count", "avg_latency", "watch_count", "num_alive_connections"} {
		w, _ := want.Get(k)
		g, ok := got.Get(k)
		require.True(t, ok, "monitor lacks %s", k)
		require.Equal(t, shape(w), shape(g), k)
		if n, ok := w.(json.Number); ok && strings.Contains(n.String(), ".") {
			require.Contains(t, g.(json.Number).String(), ".", "%s is a double in ZooKeeper", k)
		}
	}
	shared := 0
	for _, f := range got {
		if w, ok := want.Get(f.Key); ok {
			shared++
			require.Equal(t, shape(w), shape(f.Value), f.Key)
		}
	}
	require.Greater(t, shared, 20)
}

// TestAliasesAnswerAsTheirCommand checks every alias against the
// primary name's answer, and the captured aliases' command field.
func TestAliasesAnswerAsTheirCommand(t *testing.T) {
	base := standalone(t)
	for _, c := range commands {
		for _, alias := range c.names[1:] {
			got := getJSON(t, base+alias)
			cmd, _ := got.Get("command")
			require.Equal(t, c.names[0], cmd, alias)
			if !slices.Contains([]string{"monitor", "server_stats", "stats", "system_properties"}, c.names[0]) {
				require.Equal(t, shape(capture(t, "standalone-"+c.names[0])), shape(got), alias)
			}
		}
	}
}

// TestUnknownCommandAndMethods checks the answers that are not commands:
// unknown name, POST, the root, the link list.
func TestUnknownCommandAndMethods(t *testing.T) {
	base := standalone(t)
	status, hdr, body := fetch(t, http.MethodGet, base+"nosuchcmd", nil)
	want, err := os.ReadFile("testdata/zk38/leader-nosuchcmd.json")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "application/json", hdr.Get("Content-Type"))
	require.Equal(t, string(want), string(body), "byte for byte as ZooKeeper")

	status, hdr, _ = fetch(t, http.MethodPost, base+"ruok", strings.NewReader("x"))
	require.Equal(t, http.StatusMethodNotAllowed, status)
	require.Equal(t, "GET", hdr.Get("Allow"))
	status, _, _ = fetch(t, http.MethodDelete, base+"monitor", nil)
	require.Equal(t, http.StatusMethodNotAllowed, status)
	status, _, _ = fetch(t, http.MethodGet, base+"restore", nil)
	require.Equal(t, http.StatusMethodNotAllowed, status, "restore takes a POST body")

	root := strings.TrimSuffix(base, "/commands/")
	status, _, _ = fetch(t, http.MethodGet, root+"/", nil)
	require.Equal(t, http.StatusNotFound, status)

	status, _, body = fetch(t, http.MethodGet, root+"/commands", nil)
	require.Equal(t, http.StatusOK, status)
	links, err := os.ReadFile("testdata/zk38/leader-commands.html")
	require.NoError(t, err)
	got := strings.Split(strings.TrimSpace(string(body)), "\n")
	for _, line := range strings.Split(strings.TrimSpace(string(links)), "\n") {
		require.Contains(t, got, line)
	}
	require.Contains(t, got, `<a href="/commands/snapshot">snapshot</a>`)
	require.True(t, slices.IsSorted(linkNames(got)))
}

func linkNames(lines []string) []string {
	var names []string
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, `<a href="/commands/`); ok {
			names = append(names, rest[:strings.Index(rest, `"`)])
		}
	}
	return names
}

// TestCommandValues checks values, not only shapes, where the workload
// fixes them, and the trace mask's round trip.
func TestCommandValues(t *testing.T) {
	base := standalone(t)
	ws := getJSON(t, base+"wchs")
	for k, v := range map[string]string{"num_connections": "2", "num_paths": "2", "num_total_watches": "3"} {
		got, _ := ws.Get(k)
		require.Equal(t, json.Number(v), got, k)
	}
	dump := getJSON(t, base+"dump")
	eph, _ := dump.Get("session_id_to_ephemeral_paths")
	require.Len(t, eph.(Object), 2)
	leader := getJSON(t, base+"leader")
	require.Equal(t, Object{{"error", "server is not initialized"}, {"command", "leader"}}, leader)

	require.Equal(t, Object{{"error", "setTraceMask requires long traceMask argument"}, {"command", "set_trace_mask"}}, getJSON(t, base+"stmk"))
	require.Equal(t, Object{{"tracemask", json.Number("42")}, {"command", "set_trace_mask"}, {"error", nil}}, getJSON(t, base+"stmk?traceMask=42"))
	require.Equal(t, Object{{"tracemask", json.Number("42")}, {"command", "get_trace_mask"}, {"error", nil}}, getJSON(t, base+"gtmk"))
	getJSON(t, base+"stmk?traceMask=306")

	icfg := getJSON(t, base+"icfg")
	v, _ := icfg.Get("initial_configuration")
	require.Equal(t, "tickTime=2000\nclientPort=2181\n", v)
	zab := getJSON(t, base+"zabstate")
	require.Equal(t, Object{{"voting", false}, {"zabstate", ""}, {"command", "zabstate"}, {"error", nil}}, zab)
}
