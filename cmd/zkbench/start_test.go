package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/wire"
)

// runStartJSON runs zkbench with args and -json and decodes the report.
func runStartJSON(t *testing.T, args ...string) startJSONReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append(args, "-json")
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("%q: exit %d, stderr:\n%s", args, code, stderr.String())
	}
	var doc startJSONReport
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	return doc
}

// checkStartReport checks that every run succeeded with a plausible time
// and that its server is gone, and that the summary matches the runs.
func checkStartReport(t *testing.T, doc startJSONReport, order []string) {
	t.Helper()
	var got []string
	for _, run := range doc.Runs {
		got = append(got, run.Target)
		if run.StartMs <= 0 || run.StartMs > float64(startWait/time.Millisecond) || run.Probes < 1 || run.Launches < 1 {
			t.Errorf("run %+v", run)
		}
		// The round's server was stopped before the next launch.
		if c, err := net.DialTimeout("tcp", run.Addr, time.Second); err == nil {
			c.Close()
			t.Errorf("round %d %s: %s still accepts connections after the run", run.Round, run.Target, run.Addr)
		}
	}
	if !slices.Equal(got, order) {
		t.Errorf("runs %v, want %v", got, order)
	}
	for _, tg := range doc.Targets {
		s := tg.Stats
		if s.Rounds != len(order)/len(doc.Targets) || !(0 < s.Min && s.Min <= s.Median && s.Median <= s.Max) {
			t.Errorf("target %s summary %+v", tg.Label, s)
		}
	}
}

func TestStartZkserver(t *testing.T) {
	bin := buildZkserver(t)
	doc := runStartJSON(t, "-compare", "zkserver;zkserver", "-zkserver", bin, "-op", "start", "-rounds", "2")
	checkStartReport(t, doc, []string{"A", "B", "A", "B"})
	if doc.Config.Op != "start" || doc.Config.Rounds != 2 || len(doc.Targets) != 2 {
		t.Errorf("config %+v, targets %+v", doc.Config, doc.Targets)
	}
	if r := doc.RatioMedians; r == nil || *r != doc.Targets[0].Stats.Median/doc.Targets[1].Stats.Median {
		t.Errorf("ratio of medians %v, targets %+v", r, doc.Targets)
	}

	var stdout, stderr bytes.Buffer
	args := []string{"-servers", "zkserver", "-zkserver", bin, "-op", "start", "-rounds", "2"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"op=start rounds=2", "A: zkserver: zkserver standalone, in memory", "round 1 A: ",
		"round 2 A: ", "start to first write, 2 rounds", "min ", "median ", "max "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A/B") {
		t.Errorf("one target, but a ratio:\n%s", out)
	}
}

func TestStartZooKeeper(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	doc := runStartJSON(t, "-servers", "zookeeper", "-op", "start", "-rounds", "1")
	checkStartReport(t, doc, []string{"A"})
	if doc.RatioMedians != nil || !strings.Contains(doc.Targets[0].Desc, "Apache ZooKeeper standalone") {
		t.Errorf("targets %+v ratio %v", doc.Targets, doc.RatioMedians)
	}
}

func TestStartProcessExitsEarly(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "zkserver")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-servers", "zkserver", "-zkserver", bin, "-op", "start", "-rounds", "1"}
	code := realMain(context.Background(), args, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "round 1: "+errExitedEarly.Error()) || !strings.Contains(stderr.String(), "broken") {
		t.Errorf("exit %d, stderr %q; want 1, %q and the log", code, stderr.String(), errExitedEarly)
	}
}

// TestFirstWriteRetries runs the probe loop against a fake server that
// never answers its first connections (several, as ZooKeeper sometimes
// does while it starts), drops the next, refuses the
// next a session and answers the next create with an error; the loop must
// succeed on a later one without waiting for the silent probes' timeout.
func TestFirstWriteRetries(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeStartServer{ln: ln, silent: 8, quit: make(chan struct{})}
	go f.serve()
	t.Cleanup(f.close)
	p := &startProcess{addr: ln.Addr().String(), started: time.Now(), exited: func() error { return nil }, stop: func() {}}
	elapsed, probes, err := firstWrite(context.Background(), p)
	if want := f.silent + 4; err != nil || probes < want || elapsed <= 0 || elapsed >= probeTimeout {
		t.Fatalf("firstWrite = %v, %d probes, %v; want success after at least %d probes, before the %v probe timeout",
			elapsed, probes, err, want, probeTimeout)
	}
	f.close()
	if err := f.err(); err != nil {
		t.Fatal(err)
	}
}

// fakeStartServer answers its connections by script: the first silent
// ones not at all, the next by closing it, the next with a ConnectResponse
// with timeout 0, the next with a session and NODEEXISTS for the create,
// later ones with a session, a notification and then the create's success.
type fakeStartServer struct {
	ln     net.Listener
	silent int
	quit   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	mu     sync.Mutex
	errs   []error
}

func (f *fakeStartServer) serve() {
	for n := 0; ; n++ {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Go(func() {
			defer c.Close()
			// I/O errors are expected: the probe loop cancels the probes
			// still under way once one has succeeded.
			if err := f.answer(n, c); errors.Is(err, errNotACreate) {
				f.mu.Lock()
				f.errs = append(f.errs, fmt.Errorf("connection %d: %w", n, err))
				f.mu.Unlock()
			}
		})
	}
}

var errNotACreate = errors.New("not an ephemeral create with world:anyone")

func (f *fakeStartServer) answer(n int, c net.Conn) error {
	n -= f.silent // the script's step
	if n == 0 {
		return nil
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := wire.ReadFrame(c, 0, nil); err != nil {
		return err
	}
	switch {
	case n < 0:
		<-f.quit
		return nil
	case n == 1:
		_, err := c.Write(wire.AppendFrame(nil, &wire.ConnectResponse{Passwd: make([]byte, 16)}))
		return err
	}
	session := &wire.ConnectResponse{TimeOut: 10000, SessionID: int64(n), Passwd: make([]byte, 16)}
	if _, err := c.Write(wire.AppendFrame(nil, session)); err != nil {
		return err
	}
	frame, err := wire.ReadFrame(c, 0, nil)
	if err != nil {
		return err
	}
	var hdr wire.RequestHeader
	var req wire.CreateRequest
	d := wire.NewDecoder(frame, 0)
	hdr.Decode(d)
	req.Decode(d)
	if d.Err() != nil || hdr.Type != wire.OpCreate || req.Flags != wire.FlagEphemeral ||
		len(req.ACL) != 1 || req.ACL[0] != wire.OpenACLUnsafe[0] {
		return errNotACreate
	}
	var reply []byte
	if n == 2 {
		reply = wire.AppendFrame(nil, &wire.ReplyHeader{Xid: hdr.Xid, Err: wire.CodeNodeExists})
	} else {
		reply = wire.AppendFrame(nil, &wire.ReplyHeader{Xid: wire.XidNotification})
		reply = wire.AppendFrame(reply, &wire.ReplyHeader{Xid: hdr.Xid}, &wire.CreateResponse{Path: req.Path})
	}
	_, err = c.Write(reply)
	return err
}

// close stops the server and waits for its connections.
func (f *fakeStartServer) close() {
	f.once.Do(func() {
		close(f.quit)
		f.ln.Close()
	})
	f.wg.Wait()
}

func (f *fakeStartServer) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}

func TestStartFlags(t *testing.T) {
	for _, c := range []struct {
		args   []string
		rounds int
	}{
		{[]string{"-op", "start", "-servers", "zkserver"}, 10},
		{[]string{"-op", "start", "-compare", "zkserver;zookeeper"}, 10},
		{[]string{"-op", "start", "-compare", "zookeeper,zkserver", "-rounds", "3"}, 3},
	} {
		var stderr bytes.Buffer
		o, err := parseFlags(c.args, &stderr)
		if err != nil {
			t.Errorf("%q: %v\n%s", c.args, err, stderr.String())
			continue
		}
		if o.op != opStart || o.rounds != c.rounds {
			t.Errorf("%q: op %v rounds %d; want start %d", c.args, o.op, o.rounds, c.rounds)
		}
	}
	const need = "-op start times a server process from its launch, so it needs a target zkbench launches itself: zkserver or zookeeper"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "start"}, `"127.0.0.1:2181" is the address of a server started by others`},
		{[]string{"-op", "start", "-compare", "zkserver;127.0.0.1:2181,127.0.0.1:2182"}, "is the address of a server started by others"},
		{[]string{"-op", "start", "-compare", "zkraft,zookeeper"}, "zkraft runs inside zkbench's own process"},
		{[]string{"-op", "start", "-servers", "zkraft3"}, "zkraft3 runs inside zkbench's own process"},
		{[]string{"-op", "start", "-compare", "zkserver3;zookeeper"}, "zkserver3 is an ensemble of several processes"},
		{[]string{"-op", "start", "-servers", "zookeeper3"}, "zookeeper3 is an ensemble"},
		{[]string{"-op", "start", "-servers", "zkserver", "-n", "5"}, "-n applies to -op fill"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(context.Background(), c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
		if c.want != "-n applies to -op fill" && !strings.Contains(stderr.String(), need) {
			t.Errorf("%q: stderr %q lacks %q", c.args, stderr.String(), need)
		}
	}
}
