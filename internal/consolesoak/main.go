package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zkraft/zkraft/lab"
)

// ErrNoChromium says the browser the run needs is missing.
var ErrNoChromium = errors.New("consolesoak: no Chromium on PATH (Debian: apt-get install chromium)")

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run parses the flags and runs the soak.
func run(args []string) error {
	flags := flag.NewFlagSet("consolesoak", flag.ContinueOnError)
	duration := flags.Duration("duration", time.Hour, "how long the pages stay open")
	every := flags.Duration("every", time.Minute, "time between two samples")
	out := flags.String("out", "consolesoak.csv", "the CSV to write (- for stdout)")
	clients := flags.Int("clients", 1, "write load clients (50 writes a second each)")
	tabs := flags.Int("tabs", 2, "console tabs kept open (0: no browser, the control run)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	w, closeOut, err := openOut(*out)
	if err != nil {
		return err
	}
	defer closeOut()
	dir, err := os.MkdirTemp("", "consolesoak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, err := lab.Start(ctx, lab.Options{N: 3, Dir: dir})
	if err != nil {
		return err
	}
	defer l.Close()
	if err := l.StartLoad(*clients); err != nil {
		return err
	}
	var open []context.Context
	if *tabs > 0 {
		var closeBrowser func()
		open, closeBrowser, err = openTabs(l.ConsoleURLs(), *tabs)
		if err != nil {
			return err
		}
		defer closeBrowser()
	}
	return sample(ctx, w, l, dir, open, *duration, *every)
}

// openOut opens the CSV (stdout for "-").
func openOut(name string) (*csv.Writer, func(), error) {
	if name == "-" {
		w := csv.NewWriter(os.Stdout)
		return w, w.Flush, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	w := csv.NewWriter(f)
	return w, func() { w.Flush(); f.Close() }, nil
}

// openTabs starts a headless Chromium with n tabs (at most two): the
// console of the second server and the third's at the load's tree path.
func openTabs(urls []string, n int) ([]context.Context, func(), error) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		return nil, nil, ErrNoChromium
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	first, cancelFirst := chromedp.NewContext(actx)
	cancels := []context.CancelFunc{cancelFirst, cancelAlloc}
	closeAll := func() {
		for _, c := range cancels {
			c()
		}
	}
	pages := []string{urls[1], urls[2] + "#" + lab.LoadRoot}[:min(n, 2)]
	tabs := []context.Context{first}
	for i, page := range pages {
		if i > 0 { // a second tab of the same browser, once the browser runs
			tab, cancel := chromedp.NewContext(first)
			cancels = append([]context.CancelFunc{cancel}, cancels...)
			tabs = append(tabs, tab)
		}
		if err := chromedp.Do(tabs[i], chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#servers td[data-role]"))); err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("consolesoak: open %s: %w", page, err)
		}
	}
	return tabs, closeAll, nil
}

// header names the CSV's columns.
var header = []string{"minute", "heap_live_bytes", "heap_objects_bytes", "go_total_bytes", "goroutines",
	"rss_bytes", "rss_anon_bytes", "data_bytes", "writes", "tab1_updated", "tab2_updated"}

// sample writes a row now and every interval until duration has passed.
func sample(ctx context.Context, w *csv.Writer, l *lab.Lab, dir string, tabs []context.Context, duration, every time.Duration) error {
	w.Write(header)
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		row := []string{strconv.FormatFloat(time.Since(start).Minutes(), 'f', 1, 64)}
		row = append(row, memory()...)
		row = append(row, strconv.FormatInt(dirSize(dir), 10), strconv.FormatUint(l.LabStatus().Load.Writes, 10))
		for i := range 2 {
			if i < len(tabs) {
				row = append(row, lastUpdate(tabs[i]))
			} else {
				row = append(row, "")
			}
		}
		w.Write(row)
		w.Flush()
		fmt.Fprintln(os.Stderr, strings.Join(row, ","))
		if err := w.Error(); err != nil {
			return err
		}
		if time.Since(start) >= duration {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// memory reads the Go runtime's figures and the resident set.
func memory() []string {
	ms := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
	}
	metrics.Read(ms)
	out := make([]string, 0, 5)
	for _, s := range ms {
		out = append(out, strconv.FormatUint(s.Value.Uint64(), 10))
	}
	total, anon := rss()
	out = append(out, strconv.Itoa(runtime.NumGoroutine()), strconv.FormatInt(total, 10), strconv.FormatInt(anon, 10))
	return out
}

// rss is the process's resident set and its anonymous part (the heap,
// stacks and runtime, without the files mapped in, such as bbolt's Raft
// logs), in bytes, from /proc (0 elsewhere).
func rss() (total, anon int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			total = kB(v)
		} else if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			anon = kB(v)
		}
	}
	return total, anon
}

// kB reads a /proc/self/status figure ("  1234 kB") in bytes.
func kB(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
	return n * 1024
}

// dirSize is the size of the files under dir (the servers' Raft logs and
// snapshots, which the resident set maps in part).
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// lastUpdate is the time of the last update the tab drew ("" when it
// cannot say): a tab whose stream died shows an old one.
func lastUpdate(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.updated || ""`))
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}
