package console

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/bidi"
)

// firefox starts a headless Firefox for the test, skipping it when none
// is installed.
func firefox(t *testing.T) (*bidi.Browser, context.Context) {
	t.Helper()
	path, err := bidi.Find()
	if err != nil {
		t.Skip("Firefox test skipped: no firefox-esr or firefox on PATH (Debian: apt-get install firefox-esr; .ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	b, err := bidi.Start(ctx, path)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	t.Logf("browser: %s", b.Name)
	return b, ctx
}

// TestFirefox runs the console's browser checks in one headless Firefox
// (it takes seconds to start), driven over WebDriver BiDi.
func TestFirefox(t *testing.T) {
	b, ctx := firefox(t)
	t.Run("EnsembleView", func(t *testing.T) { firefoxEnsembleView(t, ctx, b) })
	t.Run("WritesAndSessions", func(t *testing.T) { firefoxWritesAndSessions(t, ctx, b) })
}

// firefoxEnsembleView is TestBrowserEnsembleView in Firefox: a follower's
// page names the leader and every server's role, its tree browser opens a
// node a go-zookeeper client created, and after the leader is killed the
// page names the new one without a reload, with the election in the
// timeline (another server's record of it too).
func firefoxEnsembleView(t *testing.T, ctx context.Context, b *bidi.Browser) {
	c, leader, follower, bases := ensembleShowing(t)

	leaderID := strconv.Itoa(leader + 1)
	require.NoError(t, b.Navigate(ctx, bases[follower]+"/"))
	var roles map[string]string
	require.NoError(t, b.Poll(ctx, `(() => {
		if (document.querySelector("#leader").dataset.leader !== "`+leaderID+`") return false;
		const r = {};
		for (const td of document.querySelectorAll("td[data-role]")) r[td.dataset.serverId] = td.dataset.role;
		return Object.values(r).filter(v => v !== "unknown" && v !== "loading").length === 3 && r;
	})()`, &roles), "the page never named leader %s and every role", leaderID)
	for id, role := range roles {
		want := "follower"
		if id == leaderID {
			want = "leader"
		}
		require.Equal(t, want, role, "server %s", id)
	}
	firefoxScreenshot(t, ctx, b, "console-firefox.png")

	var text, hexText string
	require.NoError(t, b.Poll(ctx, `(() => { const a = document.querySelector('#children a[data-path="/shown"]');
		if (a) a.click(); return !!a; })()`, new(bool)))
	require.NoError(t, b.Poll(ctx, `document.querySelector('#tree[data-path="/shown"]') && document.querySelector("#data").textContent`, &text))
	require.NoError(t, b.Eval(ctx, `document.querySelector('input[name="fmt"][value="hex"]').click()`, new(any)))
	require.NoError(t, b.Poll(ctx, `document.querySelector("#data").textContent.includes("69 6e") && document.querySelector("#data").textContent`, &hexText))
	require.Equal(t, "in the browser", text)
	require.Contains(t, hexText, "69 6e 20 74 68 65", "the data's bytes in hex")

	c.Kill(leader)
	var newLeader string
	require.NoError(t, b.Poll(ctx, `(() => { const v = document.querySelector("#leader").dataset.leader;
		return v !== "0" && v !== "`+leaderID+`" && v; })()`, &newLeader), "the page never named a new leader")
	require.Equal(t, strconv.Itoa(c.WaitForLeader()+1), newLeader)
	require.NoError(t, b.Poll(ctx,
		`document.querySelector('td[data-role="leader"][data-stale="false"][data-server-id="`+newLeader+`"]') !== null &&
		 document.querySelector('#timeline li.ev-leader:not([data-server="`+strconv.Itoa(follower+1)+`"])') !== null`, new(bool)),
		"the new leader's role and the election in the timeline, seen by another server too")
}

// firefoxScreenshot saves the tab into docs/name when screenshotEnv asks.
func firefoxScreenshot(t *testing.T, ctx context.Context, b *bidi.Browser, name string) {
	t.Helper()
	if os.Getenv(screenshotEnv) == "" {
		return
	}
	png, err := b.Screenshot(ctx)
	require.NoError(t, err)
	path := filepath.Join("..", "docs", name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("wrote %s", path)
}

// firefoxWritesAndSessions uses the edit form in Firefox as the
// authenticated user: create, then an edit with a stale version, which
// shows BADVERSION and changes nothing; and the sessions table shows a
// client's new session with its ephemeral node without a reload.
func firefoxWritesAndSessions(t *testing.T, ctx context.Context, b *bidi.Browser) {
	base, s, conn := consoleServer(t)
	require.NoError(t, b.Navigate(ctx, base+"/"))
	require.NoError(t, b.Poll(ctx, `document.querySelector('#tree[data-path="/"]') !== null`, new(bool)))
	set := func(sel, value string) {
		t.Helper()
		require.NoError(t, b.Eval(ctx, `(() => { const e = document.querySelector(`+strconv.Quote(sel)+`);
			e.value = `+strconv.Quote(value)+`; e.dispatchEvent(new Event("input")); })()`, new(any)))
	}
	click := func(sel string) string {
		t.Helper()
		var out string
		require.NoError(t, b.Eval(ctx, `(() => { document.querySelector("#edit-result").textContent = "";
			document.querySelector(`+strconv.Quote(sel)+`).click(); })()`, new(any)))
		require.NoError(t, b.Poll(ctx, `document.querySelector("#edit-result").textContent`, &out))
		return out
	}
	require.NoError(t, b.Eval(ctx, `document.querySelector("#edit").open = true`, new(any)))
	set("#auth", rootAuth)
	set("#edit-path", "/fox")
	set("#edit-data", "first")
	require.Contains(t, click("#do-create"), "create done: /fox")
	data, stat, err := conn.Get("/fox")
	require.NoError(t, err)
	require.Equal(t, "first", string(data))
	require.NoError(t, b.Poll(ctx, `document.querySelector('#tree[data-path="/fox"]') !== null`, new(bool)))

	_, err = conn.Set("/fox", []byte("by a client"), stat.Version)
	require.NoError(t, err)
	set("#edit-data", "second")
	out := click("#do-set")
	require.Contains(t, out, "BADVERSION")
	data, _, err = conn.Get("/fox")
	require.NoError(t, err)
	require.Equal(t, "by a client", string(data))

	other, _ := s.Connect(t)
	require.NoError(t, other.AddAuth("digest", []byte("root:secret")))
	_, err = other.Create("/fox-eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	var eph string
	require.NoError(t, b.Poll(ctx, `(() => { const tr = document.querySelector('#sessions tr[data-session="`+hex(other.SessionID())+`"]');
		return tr && tr.cells[4].textContent; })()`, &eph), "the new session never showed")
	require.Equal(t, "/fox-eph", eph)
}
