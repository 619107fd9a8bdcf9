package lab

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browserLab starts headless Chromium (a window height pixels tall, the
// whole test bounded by timeout) and a three-server lab with a leader,
// both stopped by the test; it skips the test without Chromium.
func browserLab(t *testing.T, height int, timeout time.Duration) (context.Context, *Lab) {
	t.Helper()
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
		chromedp.WindowSize(1280, height))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	l, err := Start(context.Background(), Options{N: 3, Interval: 250 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(l.Close)
	require.Eventually(t, func() bool { return leaderOf(l) != 0 }, 20*time.Second, 20*time.Millisecond)
	return ctx, l
}
