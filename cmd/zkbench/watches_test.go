package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWatchesPaths(t *testing.T) {
	got := watchPaths("/wbench", 3)
	want := []string{"/wbench/p-000", "/wbench/p-001", "/wbench/p-002"}
	if !slices.Equal(got, want) {
		t.Errorf("watchPaths(3) = %q, want %q", got, want)
	}
	got = watchPaths("/w", 100)
	if got[0] != "/w/p-000" || got[99] != "/w/p-099" {
		t.Errorf("watchPaths(100) = %q ... %q", got[0], got[99])
	}
	got = watchPaths("/w", 1001)
	if got[0] != "/w/p-0000" || got[1000] != "/w/p-1000" {
		t.Errorf("watchPaths(1001) = %q ... %q", got[0], got[1000])
	}
	for _, ns := range []int64{123456789, 36 * 36 * 36 * 36 * 36 * 36, 35} {
		root := watchRoot(time.Unix(0, ns))
		if !strings.HasPrefix(root, "/wbench-") || len(root) != len("/wbench-")+6 ||
			strings.Trim(root[len("/wbench-"):], "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("watchRoot(%d ns) = %q, want /wbench- and 6 base-36 digits", ns, root)
		}
	}
}

func TestWatchesPerWatch(t *testing.T) {
	for _, c := range []struct {
		before, after int64
		n             int
		want          int64
	}{
		{100, 100 + 2000000*88, 2000000, 88},
		{1000, 1000 + 299, 2, 150}, // rounded half away from zero
		{5000, 4000, 10, -100},     // the heap can shrink
		{0, 100, 0, 0},             // no watches
	} {
		if got := perWatch(c.before, c.after, c.n); got != c.want {
			t.Errorf("perWatch(%d, %d, %d) = %d, want %d", c.before, c.after, c.n, got, c.want)
		}
	}
}

func TestWatchesParseWchs(t *testing.T) {
	// ZooKeeper 3.8's and zkraft's wchs.
	s, err := parseWchs([]byte("10000 connections watching 100 paths\nTotal watches:1000000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s != (wchsSummary{conns: 10000, paths: 100, total: 1000000}) {
		t.Errorf("parseWchs = %+v", s)
	}
	for _, bad := range []string{
		"",
		"wchs is not executed because it is not in the whitelist.\n",
		"10 connections watching 1 paths\n",
		"Total watches:x\n10 connections watching 1 paths\n",
	} {
		if _, err := parseWchs([]byte(bad)); err == nil {
			t.Errorf("parseWchs(%q) succeeded", bad)
		}
	}
}

func TestWatchesDumpCounter(t *testing.T) {
	dump := "0x1\n\t/w/p-000\n\t/w/p-001\n0x2\n\t/w/p-000\n\n"
	d := newDumpCounter()
	// Written in pieces split inside lines and between "\n" and "\t".
	for _, piece := range []string{"0x1\n", "\t/w/p-0", "00\n", "\t/w/p-001\n0x2\n\t/w/p", "-000\n\n"} {
		io.WriteString(d, piece)
	}
	if d.bytes != int64(len(dump)) || d.entries != 3 {
		t.Errorf("dumpCounter: %d bytes %d entries, want %d and 3", d.bytes, d.entries, len(dump))
	}
}

func TestWatchesKinds(t *testing.T) {
	k, err := parseWatchKinds("data, child")
	if err != nil || !slices.Equal(k, []watchKindName{wkData, wkChild}) || !dataWatches(k) {
		t.Errorf("parseWatchKinds(data, child) = %v, %v", k, err)
	}
	if k, _ := parseWatchKinds("child"); dataWatches(k) {
		t.Errorf("child alone has data watches")
	}
	for _, bad := range []string{"", "data,exists", "data,data", "persistent"} {
		if _, err := parseWatchKinds(bad); err == nil {
			t.Errorf("parseWatchKinds(%q) succeeded", bad)
		}
	}
}

func TestWatchesFlags(t *testing.T) {
	o, err := parseFlags([]string{"-op", "watches", "-servers", "127.0.0.1:2181"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.n != defaultWatchesN || o.watches.paths != defaultWatchPaths || len(o.watches.kindSet) != 2 || o.rounds != 1 {
		t.Errorf("defaults: n %d paths %d kinds %v rounds %d", o.n, o.watches.paths, o.watches.kindSet, o.rounds)
	}
	if _, err := parseFlags([]string{"-op", "watches", "-watchkinds", "bogus"}, io.Discard); err == nil {
		t.Error("-watchkinds bogus accepted")
	}
	if _, err := parseFlags([]string{"-op", "watches", "-watchpaths", "0"}, io.Discard); err == nil {
		t.Error("-watchpaths 0 accepted")
	}
}

// TestWatchesFourLetter reads a four-letter word's answer to EOF from a
// fake server and sums the servers' wchs.
func TestWatchesFourLetter(t *testing.T) {
	answers := map[string]string{
		"wchs": "2 connections watching 3 paths\nTotal watches:6\n",
		"wchc": "0x1\n\t/a\n\t/b\n\n",
	}
	var addrs []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addrs = append(addrs, ln.Addr().String())
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				word := make([]byte, 4)
				if _, err := io.ReadFull(c, word); err == nil {
					io.WriteString(c, answers[string(word)])
				}
				c.Close()
			}
		}()
	}
	res, err := runWatchCommand(t.Context(), addrs, "wchs")
	if err != nil {
		t.Fatal(err)
	}
	if res.wchs != (wchsSummary{conns: 4, paths: 3, total: 12}) || res.bytes != int64(2*len(answers["wchs"])) {
		t.Errorf("wchs over two servers: %+v", res)
	}
	res, err = runWatchCommand(t.Context(), addrs, "wchc")
	if err != nil {
		t.Fatal(err)
	}
	if res.entries != 4 || res.bytes != int64(2*len(answers["wchc"])) {
		t.Errorf("wchc over two servers: %+v", res)
	}
	var b bytes.Buffer
	if _, err := fourLetter(t.Context(), addrs[0], "wchc", &b); err != nil || b.String() != answers["wchc"] {
		t.Errorf("fourLetter = %q, %v", b.String(), err)
	}
}

// TestWatchesAdminCommands GETs the AdminServer's watch commands from two
// fake AdminServers, counts their entries and sums watch_summary.
func TestWatchesAdminCommands(t *testing.T) {
	answers := map[string]string{
		"/commands/watch_summary":   `{"num_connections" : 2, "num_paths" : 2, "num_total_watches" : 3, "command" : "watch_summary", "error" : null}`,
		"/commands/watches":         `{"session_id_to_watched_paths" : {"1" : [ "/a", "/b" ], "2" : [ "/a" ]}, "error" : null}`,
		"/commands/watches_by_path": `{"path_to_session_ids" : {"/a" : [ 1, 2 ], "/b" : [ 1 ]}, "error" : null}`,
		"/commands/broken":          `{"error" : "Command not found"}`,
	}
	var admins []string
	for range 2 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a, ok := answers[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, a)
		}))
		defer srv.Close()
		admins = append(admins, strings.TrimPrefix(srv.URL, "http://"))
	}
	cmds := map[string]watchCommand{}
	for _, c := range adminWatchCommands {
		res, err := runAdminWatchCommand(t.Context(), admins, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if res.bytes != int64(2*len(answers["/commands/"+c.name])) {
			t.Errorf("%s: %d bytes", c.name, res.bytes)
		}
		cmds[c.name] = res
	}
	if s := cmds["watch_summary"].wchs; s != (wchsSummary{conns: 4, paths: 2, total: 6}) {
		t.Errorf("watch_summary over two servers: %+v", s)
	}
	if cmds["watches"].entries != 6 || cmds["watches_by_path"].entries != 6 {
		t.Errorf("entries: watches %d, watches_by_path %d, want 6 each", cmds["watches"].entries, cmds["watches_by_path"].entries)
	}
	if notes := checkAdminWatches(cmds, true, 6); len(notes) != 0 {
		t.Errorf("checkAdminWatches(want 6) = %q", notes)
	}
	if notes := checkAdminWatches(cmds, true, 12); len(notes) != 3 {
		t.Errorf("checkAdminWatches(want 12) = %q, want three notes", notes)
	}
	if _, err := runAdminWatchCommand(t.Context(), admins, "broken"); err == nil {
		t.Error("a command answering an error was accepted")
	}
	if _, err := runAdminWatchCommand(t.Context(), admins, "missing"); err == nil {
		t.Error("a 404 was accepted")
	}
	if _, ok := adminAddrsOf([]string{"127.0.0.1:1"}); ok {
		t.Error("adminAddrsOf found an AdminServer for an address zkbench did not start")
	}
}
