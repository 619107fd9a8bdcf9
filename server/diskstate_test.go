package server

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/internal/testlog"
)

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // poll interval of the condition above
	}
}

// TestFullLogDiskIsReadOnlyUntilSpaceReturns: with its log disk full a
// standalone server answers writes with NOTREADONLY, keeps serving reads
// and the session, refuses new sessions, says so once in the log and in
// mntr, and takes writes again by itself when space returns.
func TestFullLogDiskIsReadOnlyUntilSpaceReturns(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	cfg.DataDir = t.TempDir()
	cfg.TickTime = 50 * time.Millisecond
	cfg.MaxSessionTimeout = 10 * time.Second
	faults := &consensus.DiskFaults{}
	var logs testlog.Buffer
	s, err := New(cfg, WithDiskFaults(faults), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Start(ctx))
	defer s.Close()
	c := connect(t, s)
	acl := zk.WorldACL(zk.PermAll)
	_, err = c.Create("/before", []byte("v"), 0, acl)
	require.NoError(t, err)
	require.Contains(t, fourLetter(t, s, "mntr"), "zk_disk_full\t0\n")
	epoch := s.node.Epoch()
	c2 := connect(t, s) // a second session, made before the disk fills

	faults.SetFull(true)
	// The write being appended when the disk fills waits for space; the
	// ones after it are refused at once.
	inFlight := make(chan error, 1)
	go func() { _, err := c.Create("/in-flight", nil, 0, acl); inFlight <- err }()
	waitUntil(t, "the disk to be reported full", func() bool { return s.DiskState().Full })
	waitUntil(t, "the full disk to be logged", func() bool { return strings.Contains(logs.String(), "log disk full") })

	// A new session needs the log: its connection is closed, and the
	// client keeps trying until space returns.
	c3, ev, err := zk.Connect([]string{s.Addr()}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c3.Close()
	for i := 0; i < 5; i++ {
		_, err = c2.Create("/refused", nil, 0, acl)
		require.Error(t, err)
		require.Contains(t, err.Error(), "-119", "NOTREADONLY")
	}
	_, err = c2.Set("/before", []byte("w"), -1)
	require.Contains(t, err.Error(), "-119")
	data, _, err := c2.Get("/before")
	require.NoError(t, err, "reads go on")
	require.Equal(t, "v", string(data))
	mntr := fourLetter(t, s, "mntr")
	require.Contains(t, mntr, "zk_disk_full\t1\n")
	require.Regexp(t, `zk_zkraft_disk_full_refused_writes\t([6-9]|\d\d+)\n`, mntr, "six writes and any session creations")
	require.Equal(t, epoch, s.node.Epoch(), "no election")

	require.NotEqual(t, zk.StateHasSession, c3.State(), "no new session while the disk is full")

	faults.SetFull(false)
	require.NoError(t, <-inFlight, "the write in flight when the disk filled is committed when space returns")
	waitUntil(t, "writes to resume", func() bool { return !s.DiskState().Full })
	_, err = c2.Create("/after", nil, 0, acl)
	require.NoError(t, err)
	waitUntil(t, "the recovery to be logged", func() bool { return strings.Contains(logs.String(), "writes resume") })
	out := logs.String()
	require.Equal(t, 1, strings.Count(out, "level=ERROR"), "one ERROR line for the full disk:\n%s", out)
	require.Equal(t, 1, strings.Count(out, "log disk full"), out)
	require.Equal(t, 1, strings.Count(out, "writes resume"), out)
	require.Contains(t, fourLetter(t, s, "mntr"), "zk_disk_full\t0\n")
	waitUntil(t, "the new session once space is back", func() bool {
		for {
			select {
			case e := <-ev:
				if e.State == zk.StateHasSession {
					return true
				}
			default:
				return c3.State() == zk.StateHasSession
			}
		}
	})
}

// TestCloseWithFullDisk: a server closes while a write waits for space.
func TestCloseWithFullDisk(t *testing.T) {
	faults := &consensus.DiskFaults{}
	cfg := DefaultConfig()
	cfg.ClientPort = 0
	cfg.DataDir = t.TempDir()
	s, err := New(cfg, WithDiskFaults(faults))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Start(ctx))
	c := connect(t, s)
	faults.SetFull(true)
	go c.Create("/waits", nil, 0, zk.WorldACL(zk.PermAll))
	waitUntil(t, "the disk to be reported full", func() bool { return s.DiskState().Full })
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung with a write waiting for disk space")
	}
}
