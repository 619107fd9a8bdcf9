package lab

import (
	"os"
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
	ctx, l := browserLab(t, 1000, 60*time.Second)
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
