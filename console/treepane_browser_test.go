package console

import (
	"time"

	"context"
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// paneItemsJS lists what the tree pane shows, in order: each item as its
// path, " -" when expanded, " +" when collapsed (nothing for a known
// leaf), " *" when selected; each note as "note: " and its text.
const paneItemsJS = `[...document.querySelectorAll("#treepane li")].map(li => {
	if (li.getAttribute("role") !== "treeitem") return "note: " + li.textContent;
	const x = li.getAttribute("aria-expanded");
	return li.dataset.path + (x === "true" ? " -" : x === "false" ? " +" : "") + (li.getAttribute("aria-selected") === "true" ? " *" : "");
})`

// paneShows waits until the tree pane shows exactly want.
func paneShows(t *testing.T, ctx context.Context, what string, want ...string) {
	t.Helper()
	b, err := json.Marshal(want)
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`JSON.stringify(`+paneItemsJS+`) === `+jsString(string(b)), pathPoll...))
	if err != nil {
		got, err2 := chromedp.Run(ctx, chromedp.Evaluate[[]string](paneItemsJS))
		require.Equal(t, want, got, "%s: the pane never showed it (%v; %v)", what, err, err2)
	}
}

// clickToggle clicks, with the mouse, the toggle of path's item in the
// tree pane.
func clickToggle(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	item := `[...document.querySelectorAll("#treepane li[role=treeitem]")].find(li => li.dataset.path === ` + jsString(path) + `)`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const li = `+item+`; return li ? li.getAttribute("aria-expanded") || "" : ""; })()`))
	require.NoError(t, err)
	flipped := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(2 * time.Second)}
	// A click can land while the page still scrolls or lays out after the
	// previous step (the coordinates are then stale): click again, only
	// while the toggle has not flipped, so no click counts twice.
	for attempt := 1; ; attempt++ {
		xy, err := chromedp.Run(ctx, chromedp.Poll[[]float64](`(() => {
			const li = `+item+`;
			const s = li && li.querySelector(":scope > .tp-row > .tp-toggle");
			if (!s) return false;
			s.scrollIntoView({ block: "center", behavior: "instant" });
			const r = s.getClientRects()[0];
			return r && r.width > 0 && [r.x + r.width / 2, r.y + r.height / 2];
		})()`, pathPoll...))
		require.NoError(t, err, "no toggle for %q in the pane", path)
		require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(xy[0], xy[1])))
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const li = `+item+`; return !!li && (li.getAttribute("aria-expanded") || "") !== `+jsString(before)+`; })()`, flipped...))
		if err == nil || attempt == 3 {
			return
		}
		t.Logf("the click on %q's toggle did not take (attempt %d); clicking again", path, attempt)
	}
}

// clickCrumb clicks the crumb of path until the page shows path: a click
// can land on stale coordinates while the page lays out after the pane's
// change (navigating there twice does no harm).
func clickCrumb(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	shows := []chromedp.PollOption{chromedp.WithPollingInterval(50 * time.Millisecond), chromedp.WithPollingTimeout(2 * time.Second)}
	for attempt := 1; attempt <= 3; attempt++ {
		clickLink(t, ctx, "#crumbs", path)
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#tree").dataset.path === `+jsString(path), shows...)); err == nil {
			return
		}
		t.Logf("the click on the crumb %q did not take (attempt %d)", path, attempt)
	}
}

// paneFocused waits until the pane's item for path has the focus.
func paneFocused(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const a = document.activeElement;
		return a && a.getAttribute("role") === "treeitem" && a.dataset.path === `+jsString(path)+` && a.tabIndex === 0; })()`, pathPoll...))
	require.NoError(t, err, "the focus never reached %q", path)
}

// TestBrowserTreePane drives the tree browser's tree pane: expanding and
// collapsing with the mouse and the keyboard, opening a node from it,
// following navigation elsewhere (a link, the crumbs), keeping what is
// expanded while the page refreshes it, a cut list's "… N more", and a
// node the reader may not READ, whose children it never shows.
func TestBrowserTreePane(t *testing.T) {
	ctx := browser(t)
	exceptions := pageExceptions(t, ctx)
	base, _, conn := consoleServer(t)
	require.NoError(t, conn.AddAuth("digest", []byte("root:secret")))
	for _, n := range [][2]string{{"/app", "app"}, {"/app/a", "a"}, {"/app/a/b", "bee"}, {"/app/c", "c"}} {
		_, err := conn.Create(n[0], []byte(n[1]), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err, n[0])
	}
	_, err := conn.Create("/app/secret", []byte("secret"), 0, zk.DigestACL(zk.PermAll, "root", "secret"))
	require.NoError(t, err)
	_, err = conn.Create("/app/secret/inner", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/")))
	showing(t, ctx, "/")
	paneShows(t, ctx, "the root, open", "/ - *", "/app +", "/zookeeper +")

	// The mouse expands /app, then /app/a; a click on a name opens it.
	clickToggle(t, ctx, "/app")
	paneShows(t, ctx, "/app expanded", "/ - *", "/app -", "/app/a +", "/app/c +", "/app/secret +", "/zookeeper +")
	clickToggle(t, ctx, "/app/a")
	paneShows(t, ctx, "/app/a expanded", "/ - *", "/app -", "/app/a -", "/app/a/b +", "/app/c +", "/app/secret +", "/zookeeper +")
	levels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#treepane li[role=treeitem]")].map(li => li.getAttribute("aria-level"))`))
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2", "3", "4", "3", "3", "2"}, levels)
	clickLink(t, ctx, "#treepane", "/app/a/b")
	requireShown(t, ctx, "/app/a/b", "bee")
	paneShows(t, ctx, "/app/a/b selected, a leaf", "/ -", "/app -", "/app/a -", "/app/a/b *", "/app/c +", "/app/secret +", "/zookeeper +")

	// A node whose ACL grants this reader no READ: its children stay
	// hidden, in the pane as in the API.
	clickToggle(t, ctx, "/app/secret")
	paneShows(t, ctx, "/app/secret hidden", "/ -", "/app -", "/app/a -", "/app/a/b *", "/app/c +", "/app/secret -",
		"note: hidden: the node's ACL grants this reader no READ", "/zookeeper +")
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#treepane")))
	require.NoError(t, err)
	require.NotContains(t, text, "inner")

	// A list the API cuts (MaxChildren) ends in "… N more". Making
	// MaxChildren+1 nodes takes long, so the page's fetch answers this one
	// read as the API answers a cut list.
	evalJS(t, ctx, `const f = window.fetch; window.fetch = (u, o) => String(u).endsWith("/console/api/children?path=%2Fapp%2Fc")
		? Promise.resolve(new Response(JSON.stringify({ path: "/app/c", children: ["x0", "x1"], truncated: true, numChildren: 7, hidden: false }),
			{ headers: { "Content-Type": "application/json" } }))
		: f(u, o)`)
	clickToggle(t, ctx, "/app/c")
	paneShows(t, ctx, "/app/c cut", "/ -", "/app -", "/app/a -", "/app/a/b *", "/app/c -", "/app/c/x0 +", "/app/c/x1 +", "note: … 5 more",
		"/app/secret -", "note: hidden: the node's ACL grants this reader no READ", "/zookeeper +")
	clickToggle(t, ctx, "/app/c")
	clickToggle(t, ctx, "/app/secret")

	// A node made meanwhile appears as the page follows the server; what
	// is expanded stays so.
	_, err = conn.Create("/app/d", []byte("d"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	paneShows(t, ctx, "/app/d made", "/ -", "/app -", "/app/a -", "/app/a/b *", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")

	// The keyboard: arrows move, Space toggles, Enter toggles and opens.
	evalJS(t, ctx, `[...document.querySelectorAll("#treepane li[role=treeitem]")].find(li => li.dataset.path === "/app").focus()`)
	paneFocused(t, ctx, "/app")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)))
	paneFocused(t, ctx, "/app/a")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(" ")))
	paneShows(t, ctx, "Space collapsed /app/a", "/ -", "/app -", "/app/a +", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")
	paneFocused(t, ctx, "/app/a")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
	requireShown(t, ctx, "/app/a", "a")
	paneShows(t, ctx, "Enter expanded and opened /app/a", "/ -", "/app -", "/app/a - *", "/app/a/b", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight)))
	paneFocused(t, ctx, "/app/a/b")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowLeft)))
	paneFocused(t, ctx, "/app/a")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowUp)))
	paneFocused(t, ctx, "/app")

	// Collapsed, /app hides its children; navigation below it (a link,
	// then the crumbs) expands the pane down to the node opened.
	clickToggle(t, ctx, "/app")
	paneShows(t, ctx, "/app collapsed", "/ -", "/app +", "/zookeeper +")
	evalJS(t, ctx, `location.hash = "#/app/a/b"`)
	requireShown(t, ctx, "/app/a/b", "bee")
	paneShows(t, ctx, "a link to /app/a/b", "/ -", "/app -", "/app/a -", "/app/a/b *", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")
	clickToggle(t, ctx, "/app")
	paneShows(t, ctx, "/app collapsed again", "/ -", "/app +", "/zookeeper +")
	clickCrumb(t, ctx, "/app/a")
	requireShown(t, ctx, "/app/a", "a")
	paneShows(t, ctx, "the crumb /app/a", "/ -", "/app -", "/app/a - *", "/app/a/b", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")

	// Opening an expanded node reads its children again.
	_, err = conn.Create("/app/a/e", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	clickLink(t, ctx, "#crumbs", "/app/a")
	paneShows(t, ctx, "/app/a/e made", "/ -", "/app -", "/app/a - *", "/app/a/b", "/app/a/e +", "/app/c +", "/app/d +", "/app/secret +", "/zookeeper +")

	// Read as root, /app/secret shows its child (and what the pane had
	// read is read again: /app/a/b is no longer known as a leaf).
	evalJS(t, ctx, `const a = document.querySelector("#auth"); a.value = `+jsString(rootAuth)+`; a.dispatchEvent(new Event("change"))`)
	clickToggle(t, ctx, "/app/secret")
	paneShows(t, ctx, "/app/secret read as root", "/ -", "/app -", "/app/a - *", "/app/a/b +", "/app/a/e +", "/app/c +", "/app/d +",
		"/app/secret -", "/app/secret/inner +", "/zookeeper +")
	require.Empty(t, exceptions(), "the page threw")
}
