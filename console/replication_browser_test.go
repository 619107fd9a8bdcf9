package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// TestBrowserReplicationSteps opens a follower's console of a three-server
// ensemble in headless Chromium at its "Replication, step by step": a
// client's write through that follower appears as an arrow and a log row
// carrying the write's zxid; paused, a second write's messages wait, and
// each "step" plays exactly one more until the second write's proposal
// shows.
func TestBrowserReplicationSteps(t *testing.T) {
	ctx := browser(t)
	c := integration.StartCluster(t, 3, superRoot)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases := serveCluster(t, c, time.Second)
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	poll := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(20 * time.Second)}

	openRecording(t, ctx, bases[follower])
	zxid := func(path string) string {
		_, err := conn.Create(path, []byte("x"), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
		_, st, err := conn.Exists(path)
		require.NoError(t, err)
		return "0x" + strconv.FormatInt(st.Czxid, 16)
	}
	first := zxid("/step-one")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`
		document.querySelector('#steps-log tr[data-kind="append"][data-zxid="`+first+`"][data-phase="broadcast"]') !== null &&
		document.querySelector('#steps-log tr[data-kind="forward"][data-zxid="`+first+`"]') !== null &&
		document.querySelector('#steps-lanes g[data-kind="append"][data-zxid="`+first+`"]') !== null`, poll...))
	require.NoError(t, err, "the first write's forward and proposal, with its zxid, in the log and the drawing")
	labShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("steps-lab").offsetParent !== null`))
	require.NoError(t, err)
	require.False(t, labShown, "the lab's slow-down is offered only in the lab")
	stepsScreenshot(t, ctx)

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#steps-pause"))))
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#steps-log tbody tr").length`))
		require.NoError(t, err)
		return n
	}
	second := zxid("/step-two")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#steps").dataset.waiting > 0`, poll...))
	require.NoError(t, err, "paused, the second write's messages wait")
	shown := `document.querySelector('#steps-log tr[data-kind="append"][data-zxid="` + second + `"]') !== null`
	deadline := time.Now().Add(20 * time.Second)
	for {
		visible, err := chromedp.Run(ctx, chromedp.Evaluate[bool](shown))
		require.NoError(t, err)
		if visible {
			break
		}
		require.True(t, time.Now().Before(deadline), "stepping never reached the second write's proposal")
		before := rows()
		waiting, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.querySelector("#steps").dataset.waiting)`))
		require.NoError(t, err)
		if waiting == 0 {
			time.Sleep(50 * time.Millisecond) // the page's next poll brings more
			continue
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#steps-step"))))
		require.Equal(t, before+1, rows(), "one step plays one message")
	}
	paused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#steps").dataset.paused`))
	require.NoError(t, err)
	require.Equal(t, "true", paused)
}

// TestBrowserReplicationStory: the step view tells a write's story in
// order. /?steps scrolls to the view once it has content; the leader's
// lane is marked; after a "create /x" through a follower, the rows are in
// the order the messages were sent (the forward, then a proposal carrying
// the write's zxid, then the forward's reply; each follower's commit after
// its proposal), one of them is labelled "create /x", the drawing is as
// wide as its section and every label stays between its arrow's lanes.
// Under a stream of writes, "follow one write" shows only one write's
// messages (its forward, proposals, acks, commits and reply), then moves
// on to the next.
func TestBrowserReplicationStory(t *testing.T) {
	ctx := browser(t)
	c := integration.StartCluster(t, 3, superRoot)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	c.WaitForRole(follower, "follower")
	bases := serveCluster(t, c, time.Second)
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	poll := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(20 * time.Second)}

	openRecording(t, ctx, bases[follower])
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("steps").dataset.scrolled === "true" && window.scrollY > 0 &&
		Math.abs(document.getElementById("steps").getBoundingClientRect().top) < 50`, poll...))
	require.NoError(t, err, "/?steps scrolls to the view once it has content")

	// The leader's lane, and only it, is marked (as the cluster names it
	// when the page does: an election may move it meanwhile).
	waitFor(t, 20*time.Second, "the leader's lane marked", func() bool {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const marked = [...document.querySelectorAll("#steps-lanes text.steps-lane-name.leader")];
			return marked.length === 1 && marked[0].textContent.includes("leader") ? marked[0].dataset.id : "";
		})()`))
		require.NoError(t, err)
		return got == strconv.Itoa(c.WaitForLeader()+1)
	})

	_, err = conn.Create("/x", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, st, err := conn.Exists("/x")
	require.NoError(t, err)
	z := "0x" + strconv.FormatInt(st.Czxid, 16)
	// Once the forward's reply and a proposal carrying the write are drawn,
	// read the drawing in one go.
	story, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const gs = [...document.querySelectorAll("#steps-lanes g.steps-msg")];
		const reply = gs.find(g => g.dataset.kind === "forward" && g.dataset.reply === "true" && g.dataset.zxid === "`+z+`");
		const fwd = gs.find(g => g.dataset.kind === "forward" && g.dataset.reply === "false" && g.dataset.zxid === "`+z+`");
		const props = gs.filter(g => g.dataset.kind === "append" && g.dataset.reply === "false" && g.dataset.zxid === "`+z+`");
		if (!reply || !fwd || new Set(props.map(g => g.dataset.to)).size < 2) return "";
		const svg = document.getElementById("steps-lanes");
		const row = g => {
			const l = g.querySelector("line"), tx = g.querySelector("text"), b = tx.getBBox();
			const x1 = Number(l.getAttribute("x1")), x2 = Number(l.getAttribute("x2"));
			return { kind: g.dataset.kind, zab: g.dataset.zab, reply: g.dataset.reply === "true", zxid: g.dataset.zxid,
				at: Number(g.dataset.at), y: Number(g.dataset.y), text: tx.textContent, title: g.querySelector("title").textContent,
				left: Math.min(x1, x2) - 8, right: Math.max(x1, x2) + 8, textLeft: b.x, textRight: b.x + b.width };
		};
		return JSON.stringify({ rows: gs.map(row), fwd: row(fwd), reply: row(reply), props: props.map(row),
			svgWidth: svg.getBoundingClientRect().width, sectionWidth: document.getElementById("steps").clientWidth });
	})()`, poll...))
	require.NoError(t, err, "the write's forward, its proposals to both followers and its reply are drawn")
	var got struct {
		Rows, Props  []storyRow
		Fwd, Reply   storyRow
		SvgWidth     float64
		SectionWidth float64
	}
	require.NoError(t, json.Unmarshal([]byte(story), &got), story)
	for i := 1; i < len(got.Rows); i++ {
		require.LessOrEqual(t, got.Rows[i-1].At, got.Rows[i].At, "rows in the order sent: %+v", got.Rows)
		require.Less(t, got.Rows[i-1].Y, got.Rows[i].Y, "each row below the one sent before it")
	}
	// The leader may reply once one follower has the write, before its
	// proposal to the other leaves; the first proposal left before.
	first := got.Props[0]
	require.Less(t, got.Fwd.Y, first.Y, "the forward above the proposals it led to")
	require.Less(t, first.Y, got.Reply.Y, "a proposal above the forward's reply (%q, %q): %s", first.Text, got.Reply.Text, story)
	for _, p := range got.Props {
		for _, r := range got.Rows {
			if strings.Contains(r.Zab, "COMMIT") && !r.Reply && r.Y < p.Y {
				require.NotEqual(t, p.Zxid, r.Zxid, "a commit drawn above the proposal it commits")
			}
		}
	}
	labelled := false
	for _, r := range got.Rows {
		labelled = labelled || strings.Contains(r.Text, "create /x")
		require.GreaterOrEqual(t, r.TextLeft, r.Left, "label %q inside its lanes", r.Text)
		require.LessOrEqual(t, r.TextRight, r.Right, "label %q inside its lanes", r.Text)
		require.True(t, strings.HasPrefix(r.Title, strings.TrimSuffix(r.Text, "…")), "the full label in the title: %q, %q", r.Text, r.Title)
	}
	require.True(t, labelled, "a row labelled \"create /x\": %+v", got.Rows)
	require.InDelta(t, got.SectionWidth, got.SvgWidth, 2, "the drawing is as wide as its section")

	// A stream of writes through the follower, then "follow one write".
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := conn.Create(fmt.Sprintf("/f-%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#steps-follow"))))
	followed := func(not string) followedWrite {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
			const root = document.getElementById("steps");
			if (root.dataset.followDone !== "true" || !root.dataset.following || root.dataset.following === "`+not+`") return "";
			const rows = [...document.querySelectorAll("#steps-lanes g.steps-msg")].map(g => ({
				kind: g.dataset.kind, zab: g.dataset.zab, reply: g.dataset.reply === "true", zxid: g.dataset.zxid, op: g.dataset.op }));
			return JSON.stringify({ following: root.dataset.following, rows,
				logRows: document.querySelectorAll("#steps-log tbody tr").length, status: document.getElementById("steps-status").textContent });
		})()`, poll...))
		require.NoError(t, err, "a followed write completes")
		var w followedWrite
		require.NoError(t, json.Unmarshal([]byte(out), &w), out)
		return w
	}
	one := followed("")
	checkFollowed(t, one)
	two := followed(one.Following)
	checkFollowed(t, two)
	require.NotEqual(t, one.Following, two.Following, "then the next write")
}

// storyRow is one drawn row as TestBrowserReplicationStory reads it.
type storyRow struct {
	Kind, Zab, Zxid, Text, Title     string
	Reply                            bool
	At, Y                            float64
	Left, Right, TextLeft, TextRight float64
}

// followedWrite is the drawing while following one write.
type followedWrite struct {
	Following string
	Rows      []struct {
		Kind, Zab, Zxid, Op string
		Reply               bool
	}
	LogRows int
	Status  string
}

// checkFollowed: the drawing holds one write's messages only: its
// forward and reply, the proposals carrying its zxid and their acks, and
// commits (which may ride on the next write's proposal), no heartbeats.
func checkFollowed(t *testing.T, w followedWrite) {
	t.Helper()
	proposals, forwards := 0, 0
	for _, r := range w.Rows {
		require.NotEqual(t, "PING", r.Zab, "no heartbeats while following: %+v", w)
		switch {
		case r.Kind == "forward":
			require.Equal(t, w.Following, r.Zxid, "only the followed write's forward: %+v", w)
			forwards++
		case strings.HasPrefix(r.Zab, "PROPOSAL") && r.Zxid == w.Following:
			proposals++
			require.True(t, strings.HasPrefix(r.Op, "create /f-"), "the proposal names the write: %+v", r)
		default:
			require.Contains(t, r.Zab, "COMMIT", "besides the write's own messages, only its commits: %+v", w)
		}
	}
	require.Positive(t, proposals, "the write's proposals: %+v", w)
	require.Equal(t, 2, forwards, "the forward and its reply: %+v", w)
	require.LessOrEqual(t, len(w.Rows), 20, "one write's messages: %+v", w)
	require.Equal(t, len(w.Rows), w.LogRows, "the log holds the same messages")
	require.Contains(t, w.Status, "followed create /f-")
}

// stepsScreenshot saves the replication section into
// docs/console-replication.png when screenshotEnv asks.
func stepsScreenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	if os.Getenv(screenshotEnv) == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#steps"), chromedp.NodeVisible))
	require.NoError(t, err)
	path := filepath.Join("..", "docs", "console-replication.png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("wrote %s", path)
}

// openRecording opens base's step view and types the credentials that
// turn the recording on (only a caller with them does), then waits until
// the page says it records. If it never does, the failure shows what the
// page and the server said.
func openRecording(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/?steps"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("auth").value = "`+rootAuth+`"`),
	))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("steps").dataset.recording === "true"`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err == nil {
		return
	}
	page, perr := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
		ready: document.readyState, auth: document.getElementById("auth").value,
		steps: Object.assign({}, document.getElementById("steps").dataset),
		status: (document.getElementById("steps-status") || {}).textContent})`))
	req, _ := http.NewRequest(http.MethodGet, base+ReplicationPath, nil)
	req.Header.Set("Authorization", rootAuth)
	answer := "no answer"
	if resp, gerr := httpClient.Do(req); gerr != nil {
		answer = gerr.Error()
	} else {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		answer = fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	t.Fatalf("the step view never recorded: %v; page %s (%v); the server answers %s", err, page, perr, answer)
}
