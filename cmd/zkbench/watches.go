package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// The watches op (issue 30, "one million watches") measures what a server
// pays for many one-shot watches and how fast it lists them:
//
//	watches   create -watchpaths paths (default 100), each with two
//	          children; open -n sessions (default 10000) spread over the
//	          target's servers in turn; then on every session set, on
//	          every path, the watches -watchkinds names (default data,child:
//	          a getData watch and a getChildren watch), -n × -watchpaths ×
//	          kinds watches in all. The server's live heap and RSS are read
//	          before the sessions, with the sessions open and with the
//	          watches set, so that the figure per watch leaves the
//	          sessions out: (heap with watches - heap with sessions) /
//	          watches. Then the four-letter words wchs, wchc and wchp are
//	          sent to every server and read to EOF: the slowest server's
//	          time and the bytes of all servers. wchs's totals are checked
//	          against the data watches set (ZooKeeper 3.8's wchs, wchc and
//	          wchp cover data watches only; zkraft's do the same).
//
// The "10k sessions × 100 paths, data and child watches" is read
// as one million (session, path) pairs with a data and a child watch each:
// two million watches, one million of them data watches (the number wchs
// reports). -watchkinds data gives one million watches in all.
//
// The AdminServer's watch commands (watch_summary, watches,
// watches_by_path) are timed too with -watchadmin, which starts the
// built-in targets' servers with the AdminServer on (otherwise they run
// with admin.enableServer=false): a GET of /commands/NAME on a fresh
// connection per server, from the dial to the end of the body, each
// answer decoded and its entries checked against the data watches set.

// watchFlags are the flags of -op watches.
type watchFlags struct {
	paths   int    // paths each session watches
	kinds   string // comma list of data, exists, child
	workers int    // watch requests in flight while setting the watches
	profile string // directory for zkserver heap profiles with the watches set
	admin   bool   // AdminServer on in every server, its watch commands timed
	kindSet []watchKindName
}

// watchKindName is one kind of watch the op sets on every path.
type watchKindName string

const (
	wkData   watchKindName = "data"   // getData with a watch
	wkExists watchKindName = "exists" // exists with a watch (a data watch too)
	wkChild  watchKindName = "child"  // getChildren with a watch
)

const (
	defaultWatchesN       = 10000
	defaultWatchPaths     = 100
	defaultWatchWorkers   = 64
	watchChildren         = 2               // children of every watched path
	watchCommandTimeout   = 5 * time.Minute // one four-letter word, read to EOF
	watchesDefaultKindArg = "data,child"
	watchRetries          = 5 // tries more of a watch request whose connection was lost
	watchRetryWait        = time.Second
)

// register adds the flags to fs.
func (w *watchFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&w.paths, "watchpaths", defaultWatchPaths, "with -op watches: `paths` every session watches")
	fs.StringVar(&w.kinds, "watchkinds", watchesDefaultKindArg, "with -op watches: the watches every session sets on every path, a comma list of data (getData), exists and child (getChildren); data,child sets two per session and path")
	fs.IntVar(&w.workers, "watchinflight", defaultWatchWorkers, "with -op watches: watch requests in flight while setting the watches")
	fs.BoolVar(&w.admin, "watchadmin", false, "with -op watches: start the built-in targets' servers with the AdminServer on (a free loopback port) and time its watch_summary, watches and watches_by_path on every server too")
	fs.StringVar(&w.profile, "watchprofile", "", "with -op watches: save each zkserver's heap profile (its -pprof listener) with the watches set in `dir`")
}

// validate checks the flags and fills in kindSet.
func (w *watchFlags) validate() error {
	if w.paths < 1 {
		return fmt.Errorf("-watchpaths %d must be at least 1", w.paths)
	}
	if w.workers < 1 {
		return fmt.Errorf("-watchinflight %d must be at least 1", w.workers)
	}
	kinds, err := parseWatchKinds(w.kinds)
	if err != nil {
		return err
	}
	w.kindSet = kinds
	return nil
}

// parseWatchKinds parses -watchkinds: distinct names from data, exists,
// child; data and exists both set a data watch and exclude each other.
func parseWatchKinds(s string) ([]watchKindName, error) {
	var kinds []watchKindName
	seen := map[watchKindName]bool{}
	for _, k := range splitList(s) {
		kind := watchKindName(k)
		switch kind {
		case wkData, wkExists, wkChild:
		default:
			return nil, fmt.Errorf("-watchkinds: unknown kind %q (want data, exists or child)", k)
		}
		if seen[kind] {
			return nil, fmt.Errorf("-watchkinds: %s twice", k)
		}
		seen[kind] = true
		kinds = append(kinds, kind)
	}
	if len(kinds) == 0 {
		return nil, errors.New("-watchkinds: no kind given")
	}
	if seen[wkData] && seen[wkExists] {
		return nil, errors.New("-watchkinds: data and exists set the same data watch; give one of them")
	}
	return kinds, nil
}

// dataWatches reports whether kinds set a data watch on every path.
func dataWatches(kinds []watchKindName) bool {
	for _, k := range kinds {
		if k == wkData || k == wkExists {
			return true
		}
	}
	return false
}

// watchRoot returns a short fresh root for the watched paths: the paths'
// length is part of every watch's cost, in both servers, and of the
// dumps' bytes, so it is always six base-36 digits (zero-padded: an
// unpadded one made one target's wchc 2 MiB shorter than the other's).
func watchRoot(now time.Time) string {
	return fmt.Sprintf("/wbench-%06s", strconv.FormatInt(now.UnixNano()%(36*36*36*36*36*36), 36))
}

// watchPaths returns the n watched paths under root: root/p-000 ... with
// the numbers zero-padded to the width of n-1 (at least three digits).
func watchPaths(root string, n int) []string {
	width := max(3, len(strconv.Itoa(n-1)))
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/p-%0*d", root, width, i)
	}
	return paths
}

// perWatch returns the growth from before to after per watch, rounded to
// a byte.
func perWatch(before, after int64, watches int) int64 {
	if watches <= 0 {
		return 0
	}
	return int64(math.Round(float64(after-before) / float64(watches)))
}

// wchsSummary is what wchs says: "C connections watching P paths" and
// "Total watches:T".
type wchsSummary struct {
	conns, paths, total int
}

// parseWchs parses the output of wchs.
func parseWchs(out []byte) (wchsSummary, error) {
	var s wchsSummary
	var haveHead, haveTotal bool
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "Total watches:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				return s, fmt.Errorf("wchs: bad line %q", line)
			}
			s.total, haveTotal = n, true
			continue
		}
		f := strings.Fields(line)
		if len(f) == 5 && f[1] == "connections" && f[2] == "watching" && f[4] == "paths" {
			c, err1 := strconv.Atoi(f[0])
			p, err2 := strconv.Atoi(f[3])
			if err1 != nil || err2 != nil {
				return s, fmt.Errorf("wchs: bad line %q", line)
			}
			s.conns, s.paths, haveHead = c, p, true
		}
	}
	if !haveHead || !haveTotal {
		return s, fmt.Errorf("wchs: unexpected output %q", truncate(string(out), 200))
	}
	return s, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// dumpCounter counts the bytes of a wchc or wchp dump and its indented
// lines (a tab first): one per watch (session under path, or path under
// session).
type dumpCounter struct {
	bytes, entries int64
	atLineStart    bool
}

func newDumpCounter() *dumpCounter { return &dumpCounter{atLineStart: true} }

func (d *dumpCounter) Write(p []byte) (int, error) {
	d.bytes += int64(len(p))
	for _, b := range p {
		if d.atLineStart && b == '\t' {
			d.entries++
		}
		d.atLineStart = b == '\n'
	}
	return len(p), nil
}

// fourLetter sends word to addr and reads the answer to EOF into w; it
// returns the time from the dial to EOF.
func fourLetter(ctx context.Context, addr, word string, w io.Writer) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, watchCommandTimeout)
	defer cancel()
	start := time.Now()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if _, err := io.WriteString(c, word); err != nil {
		return 0, fmt.Errorf("%s to %s: %w", word, addr, err)
	}
	if _, err := io.Copy(w, c); err != nil {
		return 0, fmt.Errorf("%s from %s: %w", word, addr, err)
	}
	return time.Since(start), nil
}

// watchCommand is one four-letter word across a target's servers.
type watchCommand struct {
	slowest time.Duration // the slowest server's time to EOF
	bytes   int64         // bytes of all servers' answers
	entries int64         // indented lines of all servers' answers
	wchs    wchsSummary   // wchs only: summed over the servers
}

// runWatchCommand sends word to every server in turn.
func runWatchCommand(ctx context.Context, addrs []string, word string) (watchCommand, error) {
	var res watchCommand
	for _, a := range addrs {
		dc := newDumpCounter()
		var buf bytes.Buffer
		var w io.Writer = dc
		if word == "wchs" {
			w = io.MultiWriter(dc, &buf)
		}
		d, err := fourLetter(ctx, a, word, w)
		if err != nil {
			return res, err
		}
		res.slowest = max(res.slowest, d)
		res.bytes += dc.bytes
		res.entries += dc.entries
		if word == "wchs" {
			s, err := parseWchs(buf.Bytes())
			if err != nil {
				return res, fmt.Errorf("%s: %w", a, err)
			}
			res.wchs.conns += s.conns
			res.wchs.total += s.total
			res.wchs.paths = max(res.wchs.paths, s.paths)
		}
	}
	return res, nil
}

// adminWatchCommands are the AdminServer's watch commands, in the order
// they run, with the four-letter word each matches.
var adminWatchCommands = []struct{ name, word string }{
	{"watch_summary", "wchs"}, {"watches", "wchc"}, {"watches_by_path", "wchp"},
}

// adminCommand GETs the AdminServer command name from addr on a fresh
// connection and reads the body to EOF into w; it returns the time from
// the dial to the end of the body.
func adminCommand(ctx context.Context, addr, name string, w io.Writer) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, watchCommandTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/commands/"+name, nil)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s from %s: %w", name, addr, err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s from %s: %w", name, addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s from %s: %s", name, addr, resp.Status)
	}
	return d, nil
}

// adminWatchBody is what the three commands answer (ZooKeeper 3.8's
// field names; zkraft's are the same); only the one of the command run
// is filled.
type adminWatchBody struct {
	Conns        *int                `json:"num_connections"`
	Paths        *int                `json:"num_paths"`
	Total        *int                `json:"num_total_watches"`
	BySession    map[string][]string `json:"session_id_to_watched_paths"`
	ByPath       map[string][]int64  `json:"path_to_session_ids"`
	CommandError string              `json:"error"`
}

// entries counts what body lists: for watch_summary its totals, for
// the others one entry per (session, path).
func (b *adminWatchBody) entries(name string) (watchCommand, error) {
	var c watchCommand
	if b.CommandError != "" {
		return c, fmt.Errorf("%s: %s", name, b.CommandError)
	}
	switch name {
	case "watch_summary":
		if b.Conns == nil || b.Paths == nil || b.Total == nil {
			return c, errors.New("watch_summary: num_connections, num_paths or num_total_watches missing")
		}
		c.wchs = wchsSummary{conns: *b.Conns, paths: *b.Paths, total: *b.Total}
	case "watches":
		for _, paths := range b.BySession {
			c.entries += int64(len(paths))
		}
	case "watches_by_path":
		for _, ids := range b.ByPath {
			c.entries += int64(len(ids))
		}
	}
	return c, nil
}

// runAdminWatchCommand runs the AdminServer command name on every server
// in turn (admins are their AdminServer addresses): the slowest time, the
// bytes and the entries of all, and watch_summary's totals summed.
func runAdminWatchCommand(ctx context.Context, admins []string, name string) (watchCommand, error) {
	var res watchCommand
	for _, a := range admins {
		var buf bytes.Buffer
		d, err := adminCommand(ctx, a, name, &buf)
		if err != nil {
			return res, err
		}
		res.slowest = max(res.slowest, d)
		res.bytes += int64(buf.Len())
		var body adminWatchBody
		if err := json.Unmarshal(buf.Bytes(), &body); err != nil {
			return res, fmt.Errorf("%s from %s: %w", name, a, err)
		}
		c, err := body.entries(name)
		if err != nil {
			return res, fmt.Errorf("%s: %w", a, err)
		}
		res.entries += c.entries
		res.wchs.conns += c.wchs.conns
		res.wchs.total += c.wchs.total
		res.wchs.paths = max(res.wchs.paths, c.wchs.paths)
	}
	return res, nil
}

// checkAdminWatches returns a note for every AdminServer figure that
// disagrees with the watches set: watch_summary's total, and the entries
// of watches and watches_by_path, which list data watches as wchc and
// wchp do.
func checkAdminWatches(cmds map[string]watchCommand, admin bool, wantData int) []string {
	if !admin {
		return nil
	}
	var notes []string
	if got := cmds["watch_summary"].wchs.total; got != wantData {
		notes = append(notes, fmt.Sprintf("watch_summary: num_total_watches %d on all servers, want %d", got, wantData))
	}
	for _, name := range []string{"watches", "watches_by_path"} {
		if got := cmds[name].entries; got != int64(wantData) {
			notes = append(notes, fmt.Sprintf("%s: %d (session, path) entries on all servers, want %d", name, got, wantData))
		}
	}
	return notes
}

// addAdminWatchFigures adds the AdminServer commands' times and sizes.
func addAdminWatchFigures(res *scaleResult, cmds map[string]watchCommand) {
	for _, c := range adminWatchCommands {
		r := cmds[c.name]
		res.addMs("admin_"+c.name+"_ms", c.name+" time (slowest)", r.slowest)
		res.addBytes("admin_"+c.name+"_bytes", c.name+" bytes", r.bytes, true)
	}
}

// runWatches is -op watches on one target.
func runWatches(ctx context.Context, o *options, addrs []string, mem *procMem) (res *scaleResult, err error) {
	wf := &o.watches
	if wf.kindSet == nil {
		if err := wf.validate(); err != nil {
			return nil, err
		}
	}
	var admins []string
	if wf.admin {
		var ok bool
		if admins, ok = adminAddrsOf(addrs); !ok {
			return nil, errors.New("-watchadmin: the target has no AdminServer zkbench knows of (it needs a built-in zkserver or zookeeper target)")
		}
	}
	if err := ensureOpenFiles(o.n+1, mem.inProcess); err != nil {
		return nil, err
	}
	setter, err := connect(ctx, addrs, o.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer setter.close()
	root := watchRoot(time.Now())
	paths := watchPaths(root, wf.paths)
	var created []string
	defer func() {
		// Children before parents: in reverse order of creation.
		for i := len(created) - 1; i >= 0; i-- {
			if derr := setter.Delete(created[i], -1); derr != nil && !errors.Is(derr, zk.ErrNoNode) {
				err = errors.Join(err, fmt.Errorf("clean up: delete %s: %w", created[i], derr))
				return
			}
		}
	}()
	data := payload(o.size)
	create := func(p string, d []byte) error {
		if _, err := setter.Create(p, d, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		created = append(created, p)
		return nil
	}
	if err := create(root, nil); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := create(p, data); err != nil {
			return nil, err
		}
		for c := range watchChildren {
			if err := create(fmt.Sprintf("%s/c-%d", p, c), nil); err != nil {
				return nil, err
			}
		}
	}

	before := mem.sample(ctx, true)
	start := time.Now()
	conns, err := openInTurn(ctx, o, addrs)
	openTime := time.Since(start)
	if err != nil {
		return nil, err
	}
	defer closeAll(conns)
	// Sessions 0..servers-1 are on different servers: each sees the paths.
	if err := syncAll(conns[:min(len(conns), len(addrs))], root); err != nil {
		return nil, err
	}
	withSessions := mem.sample(ctx, true)

	n, p, k := len(conns), len(paths), len(wf.kindSet)
	var retried atomic.Int64
	start = time.Now()
	err = parallel(n*p, wf.workers, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Consecutive requests go to different sessions (and servers).
		s, path := conns[i%n], paths[i/n]
		for _, kind := range wf.kindSet {
			err := setWatch(s, kind, path)
			// A connection lost under load: go-zookeeper reconnects to the
			// same session and sets its watches again; try once more.
			for try := 0; try < watchRetries && isLostConnection(err); try++ {
				retried.Add(1)
				time.Sleep(watchRetryWait)
				err = setWatch(s, kind, path)
			}
			if err != nil {
				return fmt.Errorf("session %d: %s watch on %s: %w", i%n, kind, path, err)
			}
		}
		return nil
	})
	setTime := time.Since(start)
	if err != nil {
		return nil, err
	}
	watches := n * p * k
	watching := mem.sample(ctx, false)
	watchingGC := mem.sample(ctx, true)

	res = &scaleResult{}
	res.Notes = append(res.Notes, fmt.Sprintf("%d sessions × %d paths (%s/p-...) × %s = %d watches",
		n, p, root, strings.Join(kindStrings(wf.kindSet), "+"), watches))
	if r := retried.Load(); r > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d watch requests retried after a lost connection", r))
	}
	if wf.profile != "" {
		for _, note := range saveHeapProfiles(ctx, mem, wf.profile) {
			res.Notes = append(res.Notes, note)
		}
	}

	cmds := map[string]watchCommand{}
	for _, word := range []string{"wchs", "wchc", "wchp"} {
		c, err := runWatchCommand(ctx, addrs, word)
		if err != nil {
			return nil, err
		}
		cmds[word] = c
	}
	for _, c := range adminWatchCommands {
		if admins == nil {
			break
		}
		r, err := runAdminWatchCommand(ctx, admins, c.name)
		if err != nil {
			return nil, err
		}
		cmds[c.name] = r
	}
	wantData := 0
	if dataWatches(wf.kindSet) {
		wantData = n * p
	}
	if got := cmds["wchs"].wchs.total; got != wantData {
		res.Notes = append(res.Notes, fmt.Sprintf("wchs: Total watches %d on all servers, want %d data watches", got, wantData))
	}
	res.Notes = append(res.Notes, checkAdminWatches(cmds, admins != nil, wantData)...)

	res.add("watches", "watches set", unitCount, float64(watches))
	res.addBytes("heap_per_watch_bytes", "live heap per watch", perWatch(withSessions.heap, watchingGC.heap, watches), withSessions.heapOK && watchingGC.heapOK)
	res.addMs("wchs_ms", "wchs time (slowest server)", cmds["wchs"].slowest)
	res.add("sessions", "sessions", unitCount, float64(n))
	res.add("data_watches_wchs", "data watches (wchs total)", unitCount, float64(cmds["wchs"].wchs.total))
	res.add("watch_retries", "requests retried (conn lost)", unitCount, float64(retried.Load()))
	res.addMs("open_ms", "time to open the sessions", openTime)
	res.addMs("watch_set_ms", "time to set the watches", setTime)
	res.add("watches_per_s", "watch set rate", unitRate, float64(watches)/setTime.Seconds())
	res.addBytes("heap_before_bytes", "live heap before sessions", before.heap, before.heapOK)
	res.addBytes("heap_sessions_bytes", "live heap with sessions", withSessions.heap, withSessions.heapOK)
	res.addBytes("heap_watches_bytes", "live heap with watches", watchingGC.heap, watchingGC.heapOK)
	res.addBytes("heap_per_session_bytes", "live heap per session", perWatch(before.heap, withSessions.heap, n), before.heapOK && withSessions.heapOK)
	res.addBytes("rss_before_bytes", "RSS before sessions", before.rss, before.rssOK)
	res.addBytes("rss_sessions_bytes", "RSS with sessions", withSessions.rss, withSessions.rssOK)
	res.addBytes("rss_watches_bytes", "RSS with watches", watching.rss, watching.rssOK)
	res.addBytes("rss_watches_gc_bytes", "RSS with watches + GC", watchingGC.rss, watchingGC.rssOK)
	res.addBytes("rss_per_watch_bytes", "RSS growth per watch", perWatch(withSessions.rss, watching.rss, watches), withSessions.rssOK && watching.rssOK)
	for _, word := range []string{"wchs", "wchc", "wchp"} {
		c := cmds[word]
		if word != "wchs" {
			res.addMs(word+"_ms", word+" time (slowest server)", c.slowest)
		}
		res.addBytes(word+"_bytes", word+" bytes", c.bytes, true)
		if word != "wchs" {
			res.add(word+"_entries", word+" entries", unitCount, float64(c.entries))
		}
	}
	if admins != nil {
		addAdminWatchFigures(res, cmds)
	}
	for _, s := range []memSample{before, withSessions, watching, watchingGC} {
		if s.err != nil {
			res.Notes = append(res.Notes, s.err.Error())
			break
		}
	}
	return res, nil
}

// setWatch sets one watch of kind on path.
func setWatch(s *session, kind watchKindName, path string) error {
	var err error
	switch kind {
	case wkData:
		_, _, _, err = s.GetW(path)
	case wkExists:
		_, _, _, err = s.ExistsW(path)
	case wkChild:
		_, _, _, err = s.ChildrenW(path)
	}
	return err
}

// isLostConnection reports whether err is go-zookeeper's error for a
// request whose connection was lost before the reply.
func isLostConnection(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed)
}

func kindStrings(kinds []watchKindName) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// saveHeapProfiles saves the heap profile of every zkserver process of
// mem that has a -pprof listener in dir (go tool pprof reads them); it
// returns a note per profile saved or failed.
func saveHeapProfiles(ctx context.Context, mem *procMem, dir string) []string {
	var notes []string
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return []string{"heap profile: " + err.Error()}
	}
	for _, p := range mem.procs {
		args, err := procCmdline(p.pid)
		if err != nil {
			continue
		}
		addr, ok := pprofAddr(args)
		if !ok {
			continue
		}
		url := "http://" + loopbackFor(addr) + "/debug/pprof/heap?gc=1"
		file := filepath.Join(dir, fmt.Sprintf("heap-%d-%s.pb.gz", p.pid, time.Now().Format("150405")))
		if err := fetchTo(ctx, url, file); err != nil {
			notes = append(notes, fmt.Sprintf("heap profile of pid %d: %v", p.pid, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("heap profile of pid %d (%s) in %s", p.pid, args[0], file))
	}
	return notes
}

func fetchTo(ctx context.Context, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// openInTurn opens o.n sessions, o.inflight at a time, session i on
// addrs[i mod len(addrs)] while that server serves, with small buffers
// (go-zookeeper's default 1.5 MiB each would be 30 GB for 10,000
// sessions). On error it closes the ones it opened.
func openInTurn(ctx context.Context, o *options, addrs []string) ([]*session, error) {
	buf := max(4096, o.size+1024)
	conns := make([]*session, o.n)
	err := parallel(o.n, o.inflight, func(i int) error {
		c, events, err := zk.Connect(addrs, o.sessionTimeout, zk.WithHostProvider(&orderedHosts{servers: addrs, first: i}),
			zk.WithLogger(quietLogger{}), zk.WithMaxBufferSize(buf), zk.WithMaxConnBufferSize(buf), dialOption())
		if err != nil {
			return fmt.Errorf("session %d: %w", i+1, err)
		}
		s, err := awaitSession(ctx, &session{Conn: c, events: events}, addrs, o.sessionTimeout)
		if err != nil {
			return fmt.Errorf("session %d: %w", i+1, err)
		}
		conns[i] = s
		return nil
	})
	opened := slices.DeleteFunc(conns, func(s *session) bool { return s == nil })
	if err != nil {
		closeAll(opened)
		return nil, err
	}
	return opened, nil
}
