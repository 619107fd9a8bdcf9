package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// event is the part of a test2json record testtally reads.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// tally counts the outcomes of one test (or, with an empty Test, one
// package binary) over every run read.
type tally struct {
	runs, fails, skips int
	elapsed            float64 // summed over the runs that ended
}

func main() {
	slowest := flag.Int("slowest", 0, "also list the N slowest top-level tests (mean time per run)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testtally [-slowest N] [file.json ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	t := map[[2]string]*tally{}
	if flag.NArg() == 0 {
		if err := read(os.Stdin, t); err != nil {
			fmt.Fprintln(os.Stderr, "testtally:", err)
			os.Exit(2)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err == nil {
			err = read(f, t)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "testtally: %s: %v\n", name, err)
			os.Exit(2)
		}
	}
	if report(os.Stdout, t, *slowest) {
		os.Exit(1)
	}
}

// read adds the outcomes in one stream to t. Lines that are not JSON
// (a build error printed before the stream) are skipped. A test that
// started but has no outcome when its package ends (the binary panicked
// or timed out while it ran) counts as failed.
func read(r io.Reader, t map[[2]string]*tally) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	running := map[[2]string]bool{}
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		k := [2]string{e.Package, e.Test}
		switch e.Action {
		case "run":
			running[k] = true
			continue
		case "pass", "fail", "skip":
			delete(running, k)
		default:
			continue
		}
		if e.Test == "" && e.Action == "fail" {
			for rk := range running {
				if rk[0] == e.Package {
					add(t, rk, "fail", 0)
					delete(running, rk)
				}
			}
		}
		add(t, k, e.Action, e.Elapsed)
	}
	for rk := range running { // the stream ended without the package's outcome
		add(t, rk, "fail", 0)
	}
	return sc.Err()
}

// add counts one outcome of test k.
func add(t map[[2]string]*tally, k [2]string, action string, elapsed float64) {
	c := t[k]
	if c == nil {
		c = &tally{}
		t[k] = c
	}
	c.runs++
	c.elapsed += elapsed
	switch action {
	case "fail":
		c.fails++
	case "skip":
		c.skips++
	}
}

// report prints the failing tests, the packages and, if asked, the
// slowest tests; it returns whether anything failed.
func report(w io.Writer, t map[[2]string]*tally, slowest int) bool {
	keys := make([][2]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	failed := false
	fmt.Fprintln(tw, "FAILED TEST\tRUNS\tFAILS\tRATE")
	for _, k := range keys {
		if c := t[k]; k[1] != "" && c.fails > 0 {
			failed = true
			fmt.Fprintf(tw, "%s %s\t%d\t%d\t%.0f%%\n", short(k[0]), k[1], c.runs, c.fails, 100*float64(c.fails)/float64(c.runs))
		}
	}
	if !failed {
		fmt.Fprintln(tw, "(none)\t\t\t")
	}
	fmt.Fprintln(tw, "\nPACKAGE\tRUNS\tFAILS\tMEAN TIME")
	for _, k := range keys {
		if c := t[k]; k[1] == "" {
			failed = failed || c.fails > 0
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1fs\n", short(k[0]), c.runs, c.fails, c.elapsed/float64(c.runs))
		}
	}
	if slowest > 0 {
		listSlowest(tw, t, keys, slowest)
	}
	tw.Flush()
	return failed
}

func listSlowest(w io.Writer, t map[[2]string]*tally, keys [][2]string, n int) {
	var top [][2]string
	for _, k := range keys {
		if k[1] != "" && !strings.Contains(k[1], "/") {
			top = append(top, k)
		}
	}
	mean := func(k [2]string) float64 { return t[k].elapsed / float64(t[k].runs) }
	sort.SliceStable(top, func(i, j int) bool { return mean(top[i]) > mean(top[j]) })
	fmt.Fprintln(w, "\nSLOWEST TEST\tRUNS\t\tMEAN TIME")
	for _, k := range top[:min(n, len(top))] {
		fmt.Fprintf(w, "%s %s\t%d\t\t%.1fs\n", short(k[0]), k[1], t[k].runs, mean(k))
	}
}

// short drops the module path from a package's import path.
func short(pkg string) string {
	if s, ok := strings.CutPrefix(pkg, "github.com/zkraft/zkraft/"); ok {
		return s
	}
	return pkg
}
