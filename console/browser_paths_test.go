package console

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// exactNames are the node names TestBrowserExactPaths opens, edits and
// deletes through the page: one holding every printable ASCII character
// ZooKeeper allows in a name (all but '/'), each punctuation character
// alone ("." alone is no valid name), percent signs that look like
// escapes, and look-alikes side by side ("a b" beside "a%20b" and "a+b",
// "%" beside "%25", "trail" beside "trail "), and non-ASCII names. Names
// outside the BMP (an emoji) are invalid in ZooKeeper; the test opens one
// by its link and expects the server's refusal.
func exactNames() []string {
	var all []byte
	for c := byte(' '); c <= '~'; c++ {
		if c != '/' {
			all = append(all, c)
		}
	}
	names := []string{string(all)}
	for c := byte(' '); c <= '~'; c++ {
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if c != '/' && c != '.' && !alnum {
			names = append(names, string(c))
		}
	}
	return append(names,
		"a b", "a%20b", "a+b", "a%2Bb", "%25", "100%", "%%", "%zz", "%E0%A4%A", "a%2Fb", "a#b", "?x=1&y=2",
		"trail", "trail ", " lead", "...", "..x",
		"zürich", "z%C3%BCrich", "東京", "☃ snow", "\ufb01le")
}

// pathPoll polls more often than pagePoll: the test waits on the page
// hundreds of times.
var pathPoll = []chromedp.PollOption{chromedp.WithPollingInterval(10 * time.Millisecond), chromedp.WithPollingTimeout(20 * time.Second)}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// deepLink is a link's hash for path, made as a user's tool would (Go's
// path escaping, not the page's own), so the page must decode any valid
// percent-encoding, not only its own.
func deepLink(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "#" + strings.Join(segs, "/")
}

// pageExceptions collects the page's uncaught exceptions and unhandled
// rejections until the test ends.
func pageExceptions(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx)) // start the browser on ctx
	cctx, cancel := context.WithCancel(ctx)
	msgs := chromedp.Console(cctx)
	var mu sync.Mutex
	var out []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() {
				mu.Lock()
				out = append(out, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(out)
	}
}

// shown is what the tree browser shows of the open node.
type shown struct {
	Path      string `json:"path"`
	Data      string `json:"data"`
	CrumbPath string `json:"crumbPath"`
	CrumbText string `json:"crumbText"`
	EditPath  string `json:"editPath"`
	Hash      string `json:"hash"` // the location hash, decoded once
}

// showing waits until the tree browser shows path and returns what it
// shows.
func showing(t *testing.T, ctx context.Context, path string) shown {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Poll[shown](`(() => {
		const P = `+jsString(path)+`;
		if (document.querySelector("#tree").dataset.path !== P) return false;
		const crumbs = [...document.querySelectorAll("#crumbs a")], last = crumbs[crumbs.length - 1];
		let hash;
		try { hash = decodeURIComponent(location.hash.slice(1)); } catch (e) { hash = "malformed " + location.hash; }
		return { path: P, data: document.querySelector("#data").textContent, crumbPath: last.dataset.path,
			crumbText: last.textContent, editPath: document.querySelector("#edit-path").value, hash };
	})()`, pathPoll...))
	require.NoError(t, err, "the page never showed %q", path)
	return v
}

// requireShown checks that the page shows path, with its data, in the
// crumbs, the edit form and the location hash.
func requireShown(t *testing.T, ctx context.Context, path, data string) {
	t.Helper()
	v := showing(t, ctx, path)
	require.Equal(t, shown{Path: path, Data: data, CrumbPath: path, CrumbText: path[strings.LastIndexByte(path, '/')+1:],
		EditPath: path, Hash: path}, v, "the page showing %q", path)
}

// evalJS runs a statement in the page.
func evalJS(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { `+js+`; return true; })()`))
	require.NoError(t, err, "%s", js)
}

// clickLink clicks, with the mouse, the link for path in the element sel
// (the children, the search results, the sessions table) once it is
// there. It clicks where the link is rather than on the element found, so
// a list the page draws again meanwhile (the sessions table follows the
// live stream) gets the click on the same link, drawn anew.
func clickLink(t *testing.T, ctx context.Context, sel, path string) {
	t.Helper()
	xy, err := chromedp.Run(ctx, chromedp.Poll[[]float64](`(() => {
		const a = [...document.querySelectorAll(`+jsString(sel+" a")+`)].find(a => a.dataset.path === `+jsString(path)+`);
		if (!a) return false;
		a.scrollIntoView({ block: "center" });
		const r = a.getClientRects()[0];
		return r && r.width > 0 && [r.x + r.width / 2, r.y + r.height / 2];
	})()`, pathPoll...))
	require.NoError(t, err, "no link to %q in %s", path, sel)
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(xy[0], xy[1])))
}

// submit clicks one of the edit form's buttons and returns the result
// line once the page has answered (clickWrite, polling faster).
func submit(t *testing.T, ctx context.Context, button string) string {
	t.Helper()
	evalJS(t, ctx, `document.querySelector("#edit-result").textContent = ""`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))))
	out, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector("#edit-result").textContent`, pathPoll...))
	require.NoError(t, err)
	return out
}

// TestBrowserExactPaths checks that the page opens, edits and deletes
// exactly the node a link names, whatever its name holds ('%', "%20",
// spaces, '#', '?', '&', '+', non-ASCII): by its deep link (the location
// hash, written by another encoder), by a click in the children, in the
// search results and in the sessions table, and through the edit form.
// After each write every node under /pct is compared with what it should
// hold, so a write that hit a look-alike sibling fails. Malformed links
// show an error, never throw.
func TestBrowserExactPaths(t *testing.T) {
	start := time.Now()
	ctx := browser(t)
	exceptions := pageExceptions(t, ctx)
	base, s, conn := consoleServer(t)
	require.NoError(t, conn.AddAuth("digest", []byte("root:secret")))
	_, err := conn.Create("/pct", []byte("parent"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	want := map[string]string{} // every node under /pct -> its data
	names := exactNames()
	for i, name := range names {
		p := "/pct/" + name
		want[p] = "data " + strconv.Itoa(i) + " of " + name
		_, err := conn.Create(p, []byte(want[p]), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err, "create %q", p)
	}
	_, err = conn.Create("/pct/\U0001F600", nil, 0, zk.WorldACL(zk.PermAll))
	require.Error(t, err, "ZooKeeper refuses names outside the BMP")
	check := func(after string) {
		t.Helper()
		kids, _, err := conn.Children("/pct")
		require.NoError(t, err)
		var wantKids []string
		for p := range want {
			wantKids = append(wantKids, strings.TrimPrefix(p, "/pct/"))
		}
		require.ElementsMatch(t, wantKids, kids, "the nodes under /pct after %s", after)
		for p, d := range want {
			got, _, err := conn.Get(p)
			require.NoError(t, err, "%q after %s", p, after)
			require.Equal(t, d, string(got), "%q after %s", p, after)
		}
	}

	// A session owns two look-alike ephemerals and watches a third node:
	// the sessions table links to each exactly.
	other, _ := s.Connect(t)
	require.NoError(t, other.AddAuth("digest", []byte("root:secret")))
	_, err = conn.Create("/eph", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	for _, p := range []string{"/eph/a b", "/eph/a%20b"} {
		_, err = other.Create(p, []byte("eph "+p), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	_, _, _, err = other.GetW("/pct/100%")
	require.NoError(t, err)

	load := 0
	navigate := func(hash string) {
		t.Helper()
		load++
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/?load="+strconv.Itoa(load)+hash)))
		evalJS(t, ctx, `document.querySelector("#edit").open = true; document.querySelector("#auth").value = `+jsString(rootAuth))
	}
	bad := func(what string) {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => { const note = document.querySelector("#data-note").textContent;
			return note !== "" && [document.querySelector("#tree").dataset.path, note, document.querySelector("#edit-path").value]; })()`, pathPoll...))
		require.NoError(t, err, "%s: no error shown", what)
		require.Equal(t, "", v[0], "%s: no node shown", what)
		require.Equal(t, "", v[2], "%s: the edit form holds no path", what)
		t.Logf("%s: %s", what, v[1])
	}
	// A hand-made link with a bare '%' (as the page used to write them)
	// shows an error, and the page still works (its sessions table loads).
	navigate("#/pct/100%")
	bad("the bare '%' link")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#sessions").dataset.updated !== undefined`, pathPoll...))
	require.NoError(t, err, "the page stopped setting up at the bad link")
	// Deep links as a first load: the page decodes them exactly once.
	navigate(deepLink("/pct/a%20b"))
	requireShown(t, ctx, "/pct/a%20b", want["/pct/a%20b"])
	// A cut escape: an error, and the edit form no longer names the node
	// shown before.
	evalJS(t, ctx, `location.hash = "#/pct/%E0%A4%A"`)
	bad("a cut escape")
	navigate("#/pct/zürich") // as typed: the browser encodes it
	requireShown(t, ctx, "/pct/zürich", want["/pct/zürich"])
	// A name ZooKeeper refuses: the server's error for that path, no node.
	emoji := "/pct/\U0001F600"
	evalJS(t, ctx, `location.hash = `+jsString(deepLink(emoji)))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#data-note").textContent.startsWith(`+jsString(emoji+": ")+`) &&
		document.querySelector("#tree").dataset.path === "" && document.querySelector("#edit-path").value === `+jsString(emoji), pathPoll...))
	require.NoError(t, err, "the emoji link: no error shown")

	// The sessions table links to exactly the session's nodes.
	row := `#sessions tr[data-session="` + hex(other.SessionID()) + `"]`
	for _, p := range []string{"/eph/a%20b", "/eph/a b"} {
		clickLink(t, ctx, row+" td:nth-child(5)", p)
		requireShown(t, ctx, p, "eph "+p)
	}
	clickLink(t, ctx, row+" td:nth-child(6)", "/pct/100%")
	requireShown(t, ctx, "/pct/100%", want["/pct/100%"])

	// Every link the page writes decodes back to its node; the search
	// results link to exactly the paths found.
	evalJS(t, ctx, `location.hash = "#/pct"`)
	showing(t, ctx, "/pct")
	bads, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#children a")].filter(a =>
		a.dataset.path !== "/pct/" + a.textContent || decodeURIComponent(new URL(a.href).hash.slice(1)) !== a.dataset.path
	).map(a => a.dataset.path + " -> " + a.href)`))
	require.NoError(t, err)
	require.Empty(t, bads, "links that do not name their node")
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#children a").length`))
	require.NoError(t, err)
	require.Equal(t, len(names), n)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#search"), "/pct/a"),
		chromedp.Click(chromedp.CSS(`#search-form button`)),
	))
	found, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => { const a = [...document.querySelectorAll("#search-results a")];
		return a.length > 0 && a.map(a => decodeURIComponent(new URL(a.href).hash.slice(1)) === a.dataset.path ? a.dataset.path : "bad link " + a.href); })()`, pathPoll...))
	require.NoError(t, err)
	require.Equal(t, []string{"/pct/a b", "/pct/a#b", "/pct/a%20b", "/pct/a%2Bb", "/pct/a%2Fb", "/pct/a+b"}, found)
	clickLink(t, ctx, "#search-results", "/pct/a%20b")
	requireShown(t, ctx, "/pct/a%20b", want["/pct/a%20b"])

	// Each node: by its deep link, then by a click in its parent's
	// children; edited and deleted through the form.
	for i, name := range names {
		p := "/pct/" + name
		evalJS(t, ctx, `location.hash = `+jsString(deepLink(p)))
		requireShown(t, ctx, p, want[p])
		evalJS(t, ctx, `location.hash = "#/pct"`)
		showing(t, ctx, "/pct")
		clickLink(t, ctx, "#children", p)
		requireShown(t, ctx, p, want[p])

		edited := "edited " + strconv.Itoa(i) + " " + name
		evalJS(t, ctx, `document.querySelector("#edit-data").value = `+jsString(edited))
		require.Equal(t, "set done: "+p, submit(t, ctx, "#do-set"))
		want[p] = edited
		check("setting " + strconv.Quote(p))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#tree").dataset.path === `+jsString(p)+
			` && document.querySelector("#edit-version").value === "1"`, pathPoll...))
		require.NoError(t, err, "%q: the page never read the node again", p)
		requireShown(t, ctx, p, edited)

		require.Equal(t, "delete done: "+p, submit(t, ctx, "#do-delete"))
		delete(want, p)
		check("deleting " + strconv.Quote(p))
		showing(t, ctx, "/pct")
	}

	// Created through the form, exactly as typed (no trimming).
	for _, p := range []string{"/pct/made ", "/pct/new%20node", "/pct/100%"} {
		evalJS(t, ctx, `document.querySelector("#edit-path").value = `+jsString(p)+
			`; document.querySelector("#edit-data").value = "made"; document.querySelector("#edit-seq").checked = false`)
		require.Equal(t, "create done: "+p, submit(t, ctx, "#do-create"))
		want[p] = "made"
		check("creating " + strconv.Quote(p))
		requireShown(t, ctx, p, "made")
	}
	require.Empty(t, exceptions(), "the page threw")
	t.Logf("%d nodes in %v", len(names), time.Since(start).Round(time.Millisecond))
}
