package console

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// pagePoll are the polling options of the browser tests' waits.
var pagePoll = []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(20 * time.Second)}

// consoleServer starts a standalone server whose "/" grants ALL to
// rootAuth's user (and READ to anyone), with its console refreshing every
// 250 ms, and returns the console's address, the server and a client.
func consoleServer(t *testing.T) (string, *integration.Server, *zk.Conn) {
	t.Helper()
	s := integration.StartServer(t)
	con := New(s, Options{Interval: 250 * time.Millisecond})
	ts := httptest.NewServer(con)
	t.Cleanup(func() {
		con.CloseStreams()
		ts.Close()
	})
	conn, _ := s.Connect(t)
	_, err := conn.SetACL("/", append(zk.DigestACL(zk.PermAll, "root", "secret"), zk.WorldACL(zk.PermRead)...), -1)
	require.NoError(t, err)
	return ts.URL, s, conn
}

// clearField empties a form field (SendKeys then types into it).
func clearField(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`(() => { document.querySelector(` + "`" + sel + "`" + `).value = ""; })()`)
}

// clickWrite clicks one of the edit form's buttons and returns the result
// line once the page has answered.
func clickWrite(t *testing.T, ctx context.Context, button string) string {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("#edit-result").textContent = "", true)`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))))
	out, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector("#edit-result").textContent`, pagePoll...))
	require.NoError(t, err)
	return out
}

// TestBrowserWriteButtons logs in on the page as the AdminServer's
// authenticated user and creates, edits and deletes a znode with the
// page's buttons, checking each through go-zookeeper; an edit with a
// stale version (a client changed the node behind the page's back) shows
// the version-check error and changes nothing.
func TestBrowserWriteButtons(t *testing.T) {
	ctx := browser(t)
	base, _, conn := consoleServer(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#tree[data-path="/"]`)),
		chromedp.Click(chromedp.CSS("#edit summary")),
		chromedp.SendKeys(chromedp.CSS("#auth"), rootAuth),
		clearField("#edit-path"),
		chromedp.SendKeys(chromedp.CSS("#edit-path"), "/clicked"),
		chromedp.SendKeys(chromedp.CSS("#edit-data"), "first"),
	))
	require.Contains(t, clickWrite(t, ctx, "#do-create"), "create done: /clicked")
	data, stat, err := conn.Get("/clicked")
	require.NoError(t, err)
	require.Equal(t, "first", string(data))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#tree[data-path="/clicked"]`))))

	// A client writes behind the page's back: the version the page holds
	// (0, filled in when it opened the node) is stale.
	_, err = conn.Set("/clicked", []byte("by a client"), stat.Version)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		clearField("#edit-data"),
		chromedp.SendKeys(chromedp.CSS("#edit-data"), "second"),
	))
	out := clickWrite(t, ctx, "#do-set")
	require.Contains(t, out, "409")
	require.Contains(t, out, "BADVERSION")
	screenshot(t, ctx, "console-edit.png")
	data, stat, err = conn.Get("/clicked")
	require.NoError(t, err)
	require.Equal(t, "by a client", string(data), "the stale edit changed nothing")

	// Read again (a click on its name in the path), the node's current
	// version is filled in and the edit passes.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#crumbs a[data-path="/clicked"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#edit-data`)),
	))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#edit-version").value === "1"`, pagePoll...))
	require.NoError(t, err, "the page refilled the node's version")
	require.NoError(t, chromedp.Do(ctx,
		clearField("#edit-data"),
		chromedp.SendKeys(chromedp.CSS("#edit-data"), "second"),
	))
	require.Contains(t, clickWrite(t, ctx, "#do-set"), "set done: /clicked")
	data, stat, err = conn.Get("/clicked")
	require.NoError(t, err)
	require.Equal(t, "second", string(data))
	require.Equal(t, int32(2), stat.Version)

	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#tree[data-path="/clicked"]`))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#edit-version").value === "2"`, pagePoll...))
	require.NoError(t, err)
	require.Contains(t, clickWrite(t, ctx, "#do-delete"), "delete done")
	exists, _, err := conn.Exists("/clicked")
	require.NoError(t, err)
	require.False(t, exists, "deleted through the page")
}

// TestBrowserSessionsLive keeps the page open while a client connects,
// creates an ephemeral node and sets a watch: the sessions table shows
// them without a reload, and drops the session when the client closes.
func TestBrowserSessionsLive(t *testing.T) {
	ctx := browser(t)
	base, s, conn := consoleServer(t)
	require.NoError(t, conn.AddAuth("digest", []byte("root:secret")))
	_, err := conn.Create("/watched", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#sessions tbody tr`)),
	))

	other, _ := s.Connect(t)
	require.NoError(t, other.AddAuth("digest", []byte("root:secret")))
	_, err = other.Create("/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, _, err = other.GetW("/watched")
	require.NoError(t, err)
	id := hex(other.SessionID())
	row := `document.querySelector('#sessions tr[data-session="` + id + `"]')`
	cells, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => { const tr = `+row+`;
		return tr && tr.cells[4].textContent === "/mine" && tr.cells[5].textContent === "/watched" &&
			[...tr.cells].map(td => td.textContent); })()`, pagePoll...))
	require.NoError(t, err, "the new session, its ephemeral and its watch never showed")
	require.Equal(t, "yes", cells[3], "connected here")

	other.Close()
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](row+` === null`, pagePoll...))
	require.NoError(t, err, "the closed session stayed in the table")
	exists, _, err := conn.Exists("/mine")
	require.NoError(t, err)
	require.False(t, exists)
}
