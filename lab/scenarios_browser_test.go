package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserScenarios plays every guided scenario of the console's
// Scenarios section (console/assets/scenarios.js) to its end in headless
// Chromium, on a follower's console of a three-server lab (the leader's
// refuses the leader-crash scenario and links to it): the first by
// clicking "next" at each step, the others with auto-play and no pause.
// After each, every step is marked done and the ensemble is whole again:
// every server runs, one leads, all follow it at its last zxid, in a
// membership of all three. Skipped without Chromium.
func TestBrowserScenarios(t *testing.T) {
	ctx, l := browserLab(t, 1200, 150*time.Second)
	// On the leader's own console the leader-crash scenario refuses (the
	// page would die with the leader) and links to a follower's, where
	// the test plays every scenario. Its restore button finds nothing to
	// undo.
	leader := leaderOf(l)
	menu := `#scenarios .sc-menu button[data-scenario="leader-crash"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(l.ConsoleURLs()[leader-1]),
		chromedp.WaitVisible(chromedp.CSS(menu)),
		chromedp.Click(chromedp.CSS(menu)),
	))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("scenarios").dataset.state === "failed"`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "the leader-crash scenario ran on the leader's page")
	follower, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#scenario-panel a").href`))
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(follower, "/?scenario=leader-crash"), follower)
	require.NotEqual(t, l.ConsoleURLs()[leader-1]+"?scenario=leader-crash", follower)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#scenario-restore`))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("scenarios").dataset.state === "idle"`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "restore the ensemble did not finish")
	require.Equal(t, leader, leaderOf(l), "nothing was broken")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(follower),
		chromedp.WaitVisible(chromedp.CSS(`#scenarios .sc-menu button[data-scenario="follower-write"]`)),
	))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#scenarios .sc-menu button").length`))
	require.NoError(t, err)
	require.Equal(t, 5, n, "five scenarios in the menu")

	state := func() string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("scenarios").dataset.state`))
		require.NoError(t, err)
		return s
	}
	// finished waits until the scenario ends and checks it ended well.
	finished := func(key string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`["done", "failed"].includes(document.getElementById("scenarios").dataset.state)`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second)))
		require.NoError(t, err, "scenario %s did not end", key)
		if st := state(); st != "done" {
			text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#scenario-panel`)))
			t.Fatalf("scenario %s ended %s: %s", key, st, text)
		}
		undone, err := chromedp.Run(ctx, chromedp.Evaluate[int](
			`[...document.querySelectorAll("#scenario-steps li")].filter(li => li.dataset.state !== "done").length`))
		require.NoError(t, err)
		require.Zero(t, undone, "scenario %s: steps not done", key)
		last, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
			`document.getElementById("scenarios").dataset.step == document.querySelectorAll("#scenario-steps li").length - 1`))
		require.NoError(t, err)
		require.True(t, last, "scenario %s did not reach its last step", key)
		require.Equal(t, key, func() string {
			k, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("scenarios").dataset.scenario`))
			require.NoError(t, err)
			return k
		}())
		// A transaction may still be on its way to a follower (a client's
		// closeSession): in step again soon is what counts.
		require.Eventually(t, func() bool { return inStep(l) }, 10*time.Second, 20*time.Millisecond,
			"scenario %s left the ensemble unwell: %s", key, describeLab(l))
		for _, s := range l.LabStatus().Servers {
			require.True(t, s.Running, "scenario %s: server %d", key, s.ID)
			require.False(t, s.Isolated, "scenario %s: server %d", key, s.ID)
		}
		t.Logf("scenario %s done", key)
	}

	// The first scenario by hand: "next" at every step.
	start := time.Now()
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#scenarios .sc-menu button[data-scenario="follower-write"]`))))
	clicks := 0
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`["waiting", "done", "failed"].includes(document.getElementById("scenarios").dataset.state)`,
			chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second)))
		require.NoError(t, err)
		if state() != "waiting" {
			break
		}
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#scenario-panel`)))
		require.NoError(t, err)
		require.Contains(t, text, "Raft", "each step maps ZAB to Raft")
		if clicks == 1 && os.Getenv("ZKRAFT_SCREENSHOTS") != "" { // ZKRAFT_SCREENSHOTS=1 go test ./lab -run BrowserScenarios
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`#scenarios`)))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "console-scenarios.png"), png, 0o644))
		}
		pressNext(t, ctx)
		clicks++
	}
	finished("follower-write")
	require.Equal(t, 4, clicks, "one next between each of the five steps")
	t.Logf("follower-write: %v", time.Since(start))

	// The others with auto-play, no pause.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#scenario-auto`)),
		chromedp.SetValue(chromedp.CSS(`#scenario-pause`), "0"),
	))
	for _, key := range []string{"leader-crash", "partition", "snapshot", "reconfig"} {
		start := time.Now()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#scenarios .sc-menu button[data-scenario="`+key+`"]`))))
		finished(key)
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#scenario-steps`)))
		require.NoError(t, err)
		for _, phase := range []string{"discovery", "synchronization", "broadcast"} {
			if key == "reconfig" && phase == "discovery" {
				continue // no election in a reconfig
			}
			require.True(t, strings.Contains(text, phase), "scenario %s has no %s step: %s", key, phase, text)
		}
		t.Logf("%s: %v", key, time.Since(start))
	}
}

// describeLab is the lab's servers in a line, for failure messages.
func describeLab(l *Lab) string {
	var b strings.Builder
	st := l.LabStatus()
	for _, s := range st.Servers {
		fmt.Fprintf(&b, "server %d running=%v isolated=%v", s.ID, s.Running, s.Isolated)
		if s.Status != nil {
			fmt.Fprintf(&b, " %s of %d epoch %d zxid %#x", s.Status.Role, s.Status.LeaderID, s.Status.Epoch, s.Status.LastZxid)
		}
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "members %v", st.Members)
	return b.String()
}

// pressNext clicks "next" and waits until the scenario leaves the step it
// waited at. It watches the step's index, which stays moved, rather than
// the state, which the next step may take back to "waiting" between two
// polls. A mouse click can land beside the button when the console's live
// sections above it grow between the click's aim and its press; a click
// that moved nothing in 3 s is pressed again, which cannot skip a step
// (the step it would skip has not started).
func pressNext(t *testing.T, ctx context.Context) {
	t.Helper()
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("scenarios").dataset.step`))
	require.NoError(t, err)
	moved := fmt.Sprintf(`(s => s.dataset.step !== %q || s.dataset.state !== "waiting")(document.getElementById("scenarios"))`, at)
	for try := 1; ; try++ {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#scenario-next`))))
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](moved,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(3*time.Second)))
		if err == nil {
			return
		}
		require.Less(t, try, 4, "next did not move on from step %s after %d clicks: %v", at, try, err)
		t.Logf("next: click %d at step %s moved nothing in 3 s; pressing again", try, at)
	}
}
