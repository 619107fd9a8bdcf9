package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/faultnet"
)

// topologyLab is a Lab over an integration.Cluster, for the topology
// view's lab actions (package lab itself imports console). Its lock
// orders its actions, run by the consoles' handlers, with the test's own
// reads of the cluster.
type topologyLab struct {
	mu       sync.Mutex
	c        *integration.Cluster
	isolated map[int64]bool
}

func (l *topologyLab) index(id int64) (int, error) {
	if id < 1 || int(id) > len(l.c.Servers) {
		return 0, fmt.Errorf("%w: no server %d", ErrBadRequest, id)
	}
	return int(id - 1), nil
}

func (l *topologyLab) Kill(id int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.index(id)
	if err == nil {
		l.c.Kill(i)
	}
	return err
}

func (l *topologyLab) Restart(id int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.index(id)
	if err == nil {
		l.c.Restart(i)
	}
	return err
}

func (l *topologyLab) Isolate(id int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.index(id)
	if err != nil {
		return err
	}
	var others []int
	for j := range l.c.Servers {
		if j != i {
			others = append(others, j)
		}
	}
	l.c.Partition([]int{i}, others)
	l.isolated[id] = true
	return nil
}

func (l *topologyLab) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c.Heal()
	clear(l.isolated)
}

func (l *topologyLab) SetLink(a, b int64, delay time.Duration, loss float64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, err := l.index(a)
	if err != nil {
		return err
	}
	j, err := l.index(b)
	if err != nil {
		return err
	}
	return l.c.Net.SetLink(i, j, faultnet.LinkFault{Delay: delay, Loss: loss})
}

func (l *topologyLab) StartLoad(int) error { return errors.New("no write load in this test") }
func (l *topologyLab) StopLoad()           {}

func (l *topologyLab) LabStatus() LabStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LabStatus{Links: []LabLink{}}
	for i, s := range l.c.Servers {
		ls := LabServer{ID: int64(i + 1), Running: s != nil, Isolated: l.isolated[int64(i+1)]}
		if s != nil {
			ls.ClientAddr = s.Addr()
		}
		st.Servers = append(st.Servers, ls)
	}
	return st
}

// leader is the id of the leading server, or 0, read under the lock.
func (l *topologyLab) leader() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strconv.Itoa(l.c.Leader() + 1)
}

// serveTopologyLab serves a console with lab for each of c's servers, refreshing
// every 250 ms, and returns their base URLs.
func serveTopologyLab(t *testing.T, c *integration.Cluster, lab Lab) []string {
	t.Helper()
	bases := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		con := New(s, Options{Interval: 250 * time.Millisecond, Lab: lab})
		ts := httptest.NewServer(con)
		t.Cleanup(func() {
			con.CloseStreams()
			ts.Close()
		})
		bases[i] = ts.URL
	}
	return bases
}

// topoNode is one server's node in the topology view, as its data
// attributes say.
type topoNode struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Reachable string `json:"reachable"`
	Lab       string `json:"lab"`
	Lag       string `json:"lag"`
}

// topoNodesJS lists the nodes of the topology view.
const topoNodesJS = `[...document.querySelectorAll("#topology-svg .topo-node")].map(g => ({
	id: g.dataset.serverId, role: g.dataset.role, reachable: g.dataset.reachable, lab: g.dataset.lab || "", lag: g.dataset.lag || ""}))`

// TestBrowserTopology opens a follower's console of a three-server
// ensemble, with the lab's actions, in headless Chromium. The topology
// view draws one node per server, exactly one of them the leader; writes
// through the follower move as dots along the leader's edges. A click on
// the leader's node kills it through the lab: its node turns unreachable,
// never drawn as leader, votes travel, and another node becomes the
// leader; its menu restarts it. A click on an edge partitions a follower
// away: it is crossed out too, while the leader and a quorum remain; with
// the leader partitioned away as well, the view says "no quorum".
func TestBrowserTopology(t *testing.T) {
	ctx := browser(t)
	c := integration.StartCluster(t, 3, superRoot)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	lab := &topologyLab{c: c, isolated: map[int64]bool{}}
	bases := serveTopologyLab(t, c, lab)
	leaderID, followerID := strconv.Itoa(leader+1), strconv.Itoa(follower+1)
	poll := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(15 * time.Second)}
	nodes := func() []topoNode {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[[]topoNode](topoNodesJS))
		require.NoError(t, err)
		return n
	}

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(bases[follower]+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#lab`)),
		// Only a caller with credentials turns the message recording on,
		// and the lab's actions need them.
		chromedp.Evaluate[chromedp.Void](`document.getElementById("auth").value = "`+rootAuth+`";
			document.getElementById("lab-auth").value = "`+rootAuth+`"`),
		chromedp.Evaluate[chromedp.Void](pageErrorsJS),
		chromedp.Evaluate[chromedp.Void](lastStateJS),
	))
	// Healthy: one node per server, all reachable, exactly one leader.
	drawn, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const n = `+topoNodesJS+`;
		return n.length === 3 && n.every(g => g.reachable === "true") &&
			n.filter(g => g.role === "leader").length === 1 &&
			n.filter(g => g.role === "follower").length === 2 && n.find(g => g.role === "leader").id;
	})()`, poll...))
	require.NoError(t, err, "the healthy ensemble: %+v", nodes())
	require.Equal(t, lab.leader(), drawn, "the leader drawn is the ensemble's")
	// (A loaded machine may have re-elected since the ensemble started:
	// go on with the leader drawn, as long as it is not this page's server.)
	require.NotEqual(t, followerID, drawn, "the page's own server became the leader")
	leaderID = drawn

	// writes writes through the follower until the function it returns
	// is called.
	writes := func(prefix string) func() {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(40 * time.Millisecond):
				}
				_, _ = conn.Create(prefix+strconv.Itoa(i), []byte("x"), 0, zk.WorldACL(zk.PermAll))
			}
		}()
		return func() {
			close(stop)
			wg.Wait()
		}
	}

	// Writes through the follower: their proposals move along the leader's edges.
	stopWrites := writes("/topology-")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector(
		'#topology-svg .topo-dot[data-zab^="PROPOSAL"][data-from="`+leaderID+`"][data-on-edge="leader"]') !== null`, poll...))
	require.NoError(t, err, "no proposal moved along the leader's edges")
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#topology-svg .topo-dot").length`))
	require.NoError(t, err)
	require.LessOrEqual(t, dots, 30, "at most 30 messages move at once")
	topologyScreenshot(t, ctx, "console-topology-write.png")
	stopWrites()

	// A click on the leader's node offers the lab's kill, even when the
	// page redraws the node between the press and the release: the dead
	// leader is crossed out, never drawn as leader, and another leader
	// appears.
	clickThroughRedraw(t, ctx, leaderID)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#topology-menu button[data-action="kill"][data-id="`+leaderID+`"]`), chromedp.NodeVisible),
	))
	newLeader, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const n = `+topoNodesJS+`;
		const old = n.find(g => g.id === "`+leaderID+`"), leaders = n.filter(g => g.role === "leader");
		return n.length === 3 && old && old.reachable === "false" && old.role === "unreachable" &&
			leaders.length === 1 && leaders[0].id !== "`+leaderID+`" && leaders[0].id;
	})()`, poll...))
	require.NoError(t, err, "the dead leader crossed out and a new one: %+v", nodes())
	require.Equal(t, newLeader, lab.leader(), "the page's leader is the ensemble's")
	// The votes of the election travel too (the recording reaches this
	// page a second or two after the fact).
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const bad = [...document.querySelectorAll('#topology-svg .topo-node[data-role="leader"]')]
			.some(g => g.dataset.serverId === "`+leaderID+`");
		if (bad) throw new Error("the dead leader drawn as leader");
		return document.querySelector('#topology-svg .topo-dot[data-kind="vote"][data-phase="discovery"]') !== null;
	})()`, poll...))
	require.NoError(t, err, "no vote moved during the election")
	topologyScreenshot(t, ctx, "console-topology-election.png")
	for _, n := range nodes() {
		if n.ID == leaderID {
			require.Equal(t, "unreachable", n.Role)
			require.Equal(t, "killed", n.Lab)
		}
	}

	// The restart, from the dead server's menu: all three are back.
	openLabMenu(t, ctx, `#topology-svg .topo-node[data-server-id="`+leaderID+`"]`, "node", leaderID)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#topology-menu button[data-action="restart"][data-id="`+leaderID+`"]`), chromedp.NodeVisible),
	))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const n = `+topoNodesJS+`;
		return n.length === 3 && n.every(g => g.reachable === "true" && g.lab === "running") &&
			n.filter(g => g.role === "leader").length === 1;
	})()`, poll...))
	require.NoError(t, err, "the restarted server back: %+v", nodes())

	// Partition a follower other than this page's server away, through
	// the menu of its edge to the leader.
	cur, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("topology").dataset.leader`))
	require.NoError(t, err)
	victim := ""
	for _, id := range []string{"1", "2", "3"} {
		if id != cur && id != followerID {
			victim = id
		}
	}
	edge := func(a, b string) string {
		return strconv.Itoa(min(topoAtoi(a), topoAtoi(b))) + "-" + strconv.Itoa(max(topoAtoi(a), topoAtoi(b)))
	}
	openLabMenu(t, ctx, `#topology-svg .topo-edge[data-edge="`+edge(cur, victim)+`"]`, "edge", edge(cur, victim))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#topology-menu button[data-action="partition"][data-id="`+victim+`"]`), chromedp.NodeVisible),
	))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const n = `+topoNodesJS+`;
		const v = n.find(g => g.id === "`+victim+`");
		return v && v.reachable === "false" && v.role === "unreachable" && v.lab === "isolated" &&
			n.filter(g => g.role === "leader").length === 1 &&
			document.getElementById("topology").dataset.quorum === "true";
	})()`, poll...))
	require.NoError(t, err, "the partitioned follower crossed out, the rest with a quorum: %+v", nodes())
	// Writes go on without it: the leader and the third server are a
	// quorum, and the proposals go to that one.
	rest := strconv.Itoa(6 - topoAtoi(cur) - topoAtoi(victim))
	stopWrites = writes("/partitioned-")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector(
		'#topology-svg .topo-dot[data-zab^="PROPOSAL"][data-from="`+cur+`"][data-to="`+rest+`"]') !== null`, poll...))
	require.NoError(t, err, "no proposal to server %s while %s is cut off: %+v", rest, victim, nodes())
	topologyScreenshot(t, ctx, "console-topology-partition.png")
	stopWrites()

	// The leader partitioned away too, from its node's menu: this page's
	// server alone hears from no quorum, and the view says so.
	openLabMenu(t, ctx, `#topology-svg .topo-node[data-server-id="`+cur+`"]`, "node", cur)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#topology-menu button[data-action="partition"][data-id="`+cur+`"]`), chromedp.NodeVisible),
	))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("topology").dataset.quorum === "false" &&
		document.getElementById("topology-banner").textContent === "no quorum"`, poll...))
	require.NoError(t, err, "no quorum: %+v", nodes())
	requireNoPageErrors(t, ctx)
}

// pageErrorsJS records the page's uncaught errors from then on, which
// requireNoPageErrors reads.
const pageErrorsJS = `window.topoErrors = [];
	addEventListener("error", e => window.topoErrors.push(String(e.message)));
	addEventListener("unhandledrejection", e => window.topoErrors.push(String(e.reason)))`

// requireNoPageErrors fails the test if the page threw since pageErrorsJS.
func requireNoPageErrors(t *testing.T, ctx context.Context) {
	t.Helper()
	errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.topoErrors`))
	require.NoError(t, err)
	require.Empty(t, errs, "the page's uncaught errors")
}

// topoAtoi is s as a number (the tests' ids are).
func topoAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// topologyScreenshot saves the topology view into docs/name when
// screenshotEnv asks.
func topologyScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv(screenshotEnv) == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#topology"), chromedp.NodeVisible))
	require.NoError(t, err)
	path := filepath.Join("..", "docs", name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("wrote %s", path)
}

// topologyDrawingJS hands the topology view one made-up update, as app.js
// dispatches them, and reads back what it drew, in one go (the page's own
// updates come later): a leader (1) with a follower 120 entries behind
// (2), one whose lag it does not know (3), an unreachable server whose
// last figures say leader (4), one still loading (5), a reachable server
// that still says leader but is not the one followed (6), and no quorum.
const topologyDrawingJS = `(() => {
	const fig = (id, role, extra) => Object.assign({id, role, leaderId: 1, epoch: 7, lastLogIndex: 500, commitIndex: 500,
		appliedIndex: 500, lastZxid: 0x70000002a, followers: null}, extra || {});
	const st = {server: 2, time: new Date().toISOString(), timeline: [], peerTimeline: [],
		health: {leader: 1, epoch: 7, voters: 6, reachable: 2, loading: 1, quorum: false},
		members: [
			{id: 1, observer: false, self: false, ageMs: 100, reachable: true, loading: false,
			 status: fig(1, "leader", {followers: [{id: 2, match: 380, lag: 120}, {id: 3, match: null, lag: null},
				{id: 4, match: null, lag: null}, {id: 5, match: null, lag: null}, {id: 6, match: 500, lag: 0}]})},
			{id: 2, observer: false, self: true, ageMs: 0, reachable: true, loading: false, status: fig(2, "follower")},
			{id: 3, observer: false, self: false, ageMs: 200, reachable: true, loading: false, status: fig(3, "follower")},
			{id: 4, observer: false, self: false, ageMs: 5000, reachable: false, loading: false, status: fig(4, "leader", {epoch: 6})},
			{id: 5, observer: false, self: false, ageMs: 0, reachable: false, loading: true, status: null},
			{id: 6, observer: false, self: false, ageMs: 300, reachable: true, loading: false, status: fig(6, "leader", {epoch: 6})},
		]};
	document.dispatchEvent(new CustomEvent("zk-state", {detail: st}));
	const node = id => document.querySelector('#topology-svg .topo-node[data-server-id="' + id + '"]');
	const out = {};
	for (const id of [1, 2, 3, 4, 5, 6]) {
		const g = node(id);
		out[id] = g ? {role: g.dataset.role, lastRole: g.dataset.lastRole, reachable: g.dataset.reachable,
			lag: g.dataset.lag || "", arc: g.querySelector("path.topo-lag") !== null,
			crossed: g.querySelectorAll("line.topo-cross").length, text: g.textContent} : null;
	}
	out.leaders = document.querySelectorAll('#topology-svg .topo-node[data-role="leader"]').length;
	out.edges = [...document.querySelectorAll("#topology-svg .topo-edge")].map(e => e.dataset.edge + ":" + e.dataset.state).sort();
	out.gap = document.querySelector('#topology-svg .topo-edge[data-edge="1-2"] .topo-gap') !== null;
	out.banner = document.getElementById("topology-banner").textContent;
	out.quorum = document.getElementById("topology").dataset.quorum;
	out.summary = document.getElementById("topology-summary").textContent;
	return JSON.stringify(out);
})()`

// TestBrowserTopologyDrawing checks the topology view's rules on one
// made-up update of six servers, in headless Chromium: one leader only,
// the one the page's server follows; the lag as an arc and a gap; an
// unreachable server crossed out with its last role greyed, never as
// leader; one still loading as "loading…"; and "no quorum".
func TestBrowserTopologyDrawing(t *testing.T) {
	ctx := browser(t)
	s := integration.StartServer(t)
	con := New(s, Options{})
	ts := httptest.NewServer(con)
	t.Cleanup(func() {
		con.CloseStreams()
		ts.Close()
	})
	openPage(t, ctx, ts.URL+"/", `#topology-svg .topo-node[data-role="standalone"]`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](pageErrorsJS)))
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](topologyDrawingJS))
	require.NoError(t, err)
	var got struct {
		N1, N2, N3, N4, N5, N6 *struct {
			Role, LastRole, Reachable, Lag, Text string
			Arc                                  bool
			Crossed                              int
		}
		Leaders             int
		Edges               []string
		Gap                 bool
		Banner, Quorum, Sum string
	}
	// The node keys are numbers in the page's JSON.
	raw = strings.NewReplacer(`"1":`, `"N1":`, `"2":`, `"N2":`, `"3":`, `"N3":`, `"4":`, `"N4":`, `"5":`, `"N5":`,
		`"6":`, `"N6":`, `"summary":`, `"Sum":`).Replace(raw)
	require.NoError(t, json.Unmarshal([]byte(raw), &got), raw)
	require.NotNil(t, got.N6, raw)

	require.Equal(t, 1, got.Leaders, "exactly one leader: %s", raw)
	require.Equal(t, "leader", got.N1.Role)
	require.Equal(t, "follower", got.N2.Role)
	require.Equal(t, "120", got.N2.Lag)
	require.True(t, got.N2.Arc, "the lag's arc")
	require.Contains(t, got.N2.Text, "lag 120 entries")
	require.True(t, got.Gap, "the lag's gap on the leader's edge")
	require.Equal(t, "unknown", got.N3.Lag)
	require.False(t, got.N3.Arc)

	require.Equal(t, "unreachable", got.N4.Role, "a dead leader is never drawn as leader")
	require.Equal(t, "leader", got.N4.LastRole)
	require.Equal(t, "false", got.N4.Reachable)
	require.Equal(t, 2, got.N4.Crossed, "crossed out")
	require.Contains(t, got.N4.Text, "unreachable · last seen 5.0 s ago")
	require.Contains(t, got.N4.Text, "was leader")

	require.Equal(t, "loading", got.N5.Role, "loading, not unreachable")
	require.Contains(t, got.N5.Text, "loading…")
	require.Zero(t, got.N5.Crossed)

	require.Equal(t, "deposed", got.N6.Role, "a leader not followed is not drawn as leader")
	require.Equal(t, []string{"1-2:up", "1-3:up", "1-4:cut", "1-5:loading", "1-6:up"}, got.Edges)
	require.Equal(t, "no quorum", got.Banner)
	require.Equal(t, "false", got.Quorum)
	require.Contains(t, got.Sum, "leader: server 1")
	requireNoPageErrors(t, ctx)
}

// openLabMenu clicks target (a node or an edge of the topology view) and
// waits up to 5 s until the lab's menu shows for it: menuFor is "node" or
// "edge", id the server id or the edge's "a-b".
func openLabMenu(t *testing.T, ctx context.Context, target, menuFor, id string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(target), chromedp.NodeVisible)))
	labMenuShows(t, ctx, menuFor, id)
}

// labMenuShows waits up to 5 s until the lab's menu shows for menuFor id.
func labMenuShows(t *testing.T, ctx context.Context, menuFor, id string) {
	t.Helper()
	shows := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(5 * time.Second)}
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
		const m = document.getElementById("topology-menu");
		return !m.hidden && m.dataset.for === `+jsString(menuFor)+` && m.dataset.id === `+jsString(id)+`;
	})()`, shows...))
	require.NoError(t, err, "the lab's menu for %s %s did not open", menuFor, id)
}

// clickThroughRedraw clicks server id's node with the press and the
// release apart, and between them hands the page its last state again
// with the node's figures changed, so that the node is drawn anew under
// the pointer. The click must still open the node's menu (Chromium drops
// a click whose press target left the page before the release).
func clickThroughRedraw(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	node := `document.querySelector('#topology-svg .topo-node[data-server-id="` + id + `"]')`
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const r = `+node+`.querySelector(".topo-disc").getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2];
	})()`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[1], chromedp.ButtonLeft, chromedp.ClickCount(1))))
	redrawn, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const disc = `+node+`.querySelector(".topo-disc");
		const st = structuredClone(window.topoLastState);
		const m = st.members.find(m => String(m.id) === `+jsString(id)+`);
		m.status.lastZxid += 1;
		document.dispatchEvent(new CustomEvent("zk-state", {detail: st}));
		return `+node+`.querySelector(".topo-disc") !== disc;
	})()`))
	require.NoError(t, err)
	require.True(t, redrawn, "the node was not drawn anew")
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[0], xy[1], chromedp.ButtonLeft, chromedp.ClickCount(1))))
	labMenuShows(t, ctx, "node", id)
}

// lastStateJS keeps the page's latest state in window.topoLastState, for
// clickThroughRedraw.
const lastStateJS = `document.addEventListener("zk-state", e => { window.topoLastState = e.detail; })`
