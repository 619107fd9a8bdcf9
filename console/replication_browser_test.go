package console

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(bases[follower]+"/?steps"),
		// Only a caller with credentials turns the recording on.
		chromedp.Evaluate[chromedp.Void](`document.getElementById("auth").value = "`+rootAuth+`"`),
		chromedp.WaitVisible(chromedp.CSS(`#steps[data-recording="true"]`)),
	))
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
