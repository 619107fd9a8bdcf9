package lab

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

// TestBrowserPartitionButton opens a follower's console in headless
// Chromium, clicks the lab's "partition away" button of that follower,
// and sees its role on the page turn to looking; the heal button makes it
// a follower again. Skipped without Chromium.
func TestBrowserPartitionButton(t *testing.T) {
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("browser test skipped: no Chromium found on PATH (Debian: apt-get install chromium; .ci/run installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	l, err := Start(context.Background(), Options{N: 3, Interval: 250 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(l.Close)
	require.Eventually(t, func() bool { return leaderOf(l) != 0 }, 20*time.Second, 20*time.Millisecond)
	id := strconv.FormatInt(leaderOf(l)%3+1, 10) // a follower, whose console the test opens
	cell := func(role string) string { return `td[data-role="` + role + `"][data-server-id="` + id + `"]` }
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(l.ConsoleURLs()[leaderOf(l)%3]),
		chromedp.WaitVisible(chromedp.CSS(`#lab`)),
		chromedp.WaitVisible(chromedp.CSS(cell("follower"))),
		chromedp.Click(chromedp.CSS(`#lab-servers button[data-action="partition"][data-id="`+id+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(cell("looking"))),
	))
	if os.Getenv("ZKRAFT_SCREENSHOTS") != "" { // ZKRAFT_SCREENSHOTS=1 go test ./lab -run Browser
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "console-lab.png"), png, 0o644))
	}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#lab-heal`)),
		chromedp.WaitVisible(chromedp.CSS(cell("follower"))),
	))
}
