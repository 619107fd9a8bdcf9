package console

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// screenshotEnv names the variable that makes TestBrowserEnsembleView save
// its screenshots into docs/ (ZKRAFT_SCREENSHOTS=1 go test ./console -run
// Browser).
const screenshotEnv = "ZKRAFT_SCREENSHOTS"

// chromium returns the path of a Chromium or Chrome binary, skipping the
// test when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser test skipped: no Chromium found on PATH (Debian: apt-get install chromium; .ci/run installs it)")
	return ""
}

// browser starts a headless Chromium for the test and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	return ctx
}

// openPage navigates to url and waits until sel is visible, 20 s at most;
// a load that shows nothing by then is logged with what the page had
// (its state, its address, the start of its body) and tried once more.
// A test that draws made-up figures on the page is not about the first
// load: once, under make test's load, Chromium showed nothing for the
// whole of a test's minute (TestBrowserTopologyDrawing), and the next
// time says what it was stuck on.
func openPage(t *testing.T, ctx context.Context, url, sel string) {
	t.Helper()
	// The browser starts with the first action run on ctx itself: one
	// started under a shorter context would close with it.
	require.NoError(t, chromedp.Do(ctx))
	const tries = 2
	for try := 1; ; try++ {
		load, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := chromedp.Do(load, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			return
		}
		look, cancel := context.WithTimeout(ctx, 3*time.Second)
		page, lookErr := chromedp.Run(look, chromedp.Evaluate[string](
			`JSON.stringify({ready: document.readyState, at: location.href, body: (document.body ? document.body.innerText : "").slice(0, 300)})`))
		cancel()
		if try == tries {
			t.Fatalf("%s: %s not visible after %d loads: %v; the page: %s %v", url, sel, tries, err, page, lookErr)
		}
		t.Logf("%s: %s not visible in 20 s (%v); the page: %s %v; loading it again", url, sel, err, page, lookErr)
	}
}

// TestBrowserEnsembleView opens a follower's console of a three-server
// ensemble in headless Chromium: the page names the right leader and
// shows every server's role; after the test kills the leader, the same
// page, without a reload, names the new one.
func TestBrowserEnsembleView(t *testing.T) {
	ctx := browser(t)
	c, leader, follower, bases := ensembleShowing(t)

	leaderID := strconv.Itoa(leader + 1)
	poll := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(20 * time.Second)}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(bases[follower]+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#leader[data-leader="`+leaderID+`"]`)),
	))
	// Every server's role, the others' gathered over the links.
	roles, err := chromedp.Run(ctx, chromedp.Poll[map[string]string](`(() => {
		const r = {};
		for (const td of document.querySelectorAll("td[data-role]")) r[td.dataset.serverId] = td.dataset.role;
		return Object.values(r).filter(v => v !== "unknown" && v !== "loading").length === 3 && r;
	})()`, poll...))
	require.NoError(t, err)
	for id, role := range roles {
		want := "follower"
		if id == leaderID {
			want = "leader"
		}
		require.Equal(t, want, role, "server %s", id)
	}
	screenshot(t, ctx, "console-ensemble.png")

	// The tree browser: the root lists the node the client created; a
	// click opens it, with its data as text, then as hex.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#children a[data-path="/shown"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#tree[data-path="/shown"]`)),
	))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#data")))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[name="fmt"][value="hex"]`))))
	hexText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#data")))
	require.NoError(t, err)
	require.Equal(t, "in the browser", text)
	require.Contains(t, hexText, "69 6e 20 74 68 65", "the data's bytes in hex")
	screenshot(t, ctx, "console-tree.png")

	c.Kill(leader)
	newLeader, err := chromedp.Run(ctx, chromedp.Poll[string](
		`(() => { const v = document.querySelector("#leader").dataset.leader; return v !== "0" && v !== "`+leaderID+`" && v; })()`, poll...))
	require.NoError(t, err, "the page never named a new leader")
	require.Equal(t, strconv.Itoa(c.WaitForLeader()+1), newLeader)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](
		`document.querySelector('td[data-role="leader"][data-stale="false"][data-server-id="`+newLeader+`"]') !== null &&
		 document.querySelector('td[data-role][data-stale="true"][data-server-id="`+leaderID+`"]') !== null &&
		 document.querySelector("#timeline li.ev-leader") !== null &&
		 document.querySelector('#timeline li.ev-leader:not([data-server="`+strconv.Itoa(follower+1)+`"])') !== null`, poll...))
	require.NoError(t, err, "the new leader's role, the old one greyed out, and the election in the timeline, the other servers' too")
	screenshot(t, ctx, "console-leader-killed.png")
}

// screenshot saves the page into docs/name when screenshotEnv asks.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv(screenshotEnv) == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join("..", "docs", name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("wrote %s", path)
}
