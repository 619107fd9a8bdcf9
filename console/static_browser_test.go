package console

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestHeadlessCaptureOfStaticPage takes the page the way docs/console.md
// tells an operator to, with no browser driver: `chromium --headless
// --dump-dom --virtual-time-budget=...` on a follower's /?static. It must
// finish (the live page's event stream keeps a page loading for ever) and
// hold every server's role, the leader's among them.
func TestHeadlessCaptureOfStaticPage(t *testing.T) {
	bin := chromium(t)
	_, _, follower, bases := ensembleShowing(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--virtual-time-budget=5000", "--dump-dom", bases[follower]+"/?static")
	out, err := cmd.Output()
	require.NoError(t, ctx.Err(), "chromium --dump-dom on /?static did not finish")
	require.NoError(t, err)
	dom := string(out)
	roles := map[string]string{}
	for _, m := range regexp.MustCompile(`<td[^>]*data-role="([a-z-]+)"[^>]*data-server-id="(\d+)"`).FindAllStringSubmatch(dom, -1) {
		roles[m[2]] = m[1]
	}
	require.Len(t, roles, 3, "every server's role in the captured page: %v", roles)
	// The leader may have changed on a loaded machine since the ensemble
	// started: one leader and two followers, whichever they are.
	counts := map[string]int{}
	for _, role := range roles {
		counts[role]++
	}
	require.Equal(t, map[string]int{"leader": 1, "follower": 2}, counts, "roles in the captured page: %v", roles)
	require.True(t, strings.Contains(dom, "static: one snapshot"), "the page says it is a static snapshot")
}

// TestHiddenPageClosesItsStream: a page that nobody can see (a hidden tab)
// ends its event stream, so the server gathers nothing for it, and opens
// it again once visible.
func TestHiddenPageClosesItsStream(t *testing.T) {
	ctx := browser(t)
	con, base := serve(t, newFakeView(), 100*time.Millisecond)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	streamsAre := func(want int) func() bool {
		return func() bool { open, _ := con.hub.streams(); return open == want }
	}
	waitFor(t, 20*time.Second, "the page's stream", streamsAre(1))
	setHidden := func(hidden bool) {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
			Object.defineProperty(document, "hidden", {value: `+strconv.FormatBool(hidden)+`, configurable: true});
			document.dispatchEvent(new Event("visibilitychange"));
			return true;
		})()`))
		require.NoError(t, err)
	}
	setHidden(true)
	waitFor(t, 20*time.Second, "the hidden page's stream to close", streamsAre(0))
	link, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#link")))
	require.NoError(t, err)
	require.Equal(t, "paused while hidden", link)
	setHidden(false)
	waitFor(t, 20*time.Second, "the visible page's stream again", streamsAre(1))
}
