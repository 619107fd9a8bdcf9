package consensus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// startFaulty starts a durable standalone node whose log disk a test can
// make look full; with noSync its log is raft-boltdb without syncing.
func startFaulty(t *testing.T, noSync bool) (*Node, *DiskFaults) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := &DiskFaults{}
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: t.TempDir(), NoSync: noSync, Bolt: noSync, Faults: f}})
	require.NoError(t, err)
	return n, f
}

func createAt(path string) *Command {
	return txnCmd(wire.OpCreate, &wire.CreateRequest{Path: path, ACL: wire.OpenACLUnsafe})
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // poll interval of the condition above
	}
}

// TestFullDiskRefusesWritesWithoutElections: a standalone node whose log
// cannot grow keeps its leadership and term (it used to step down and
// re-elect itself thousands of times a minute), refuses new writes with
// ErrDiskFull, keeps serving reads, and resumes by itself when space
// returns; the write that was being appended when the disk filled is
// committed then, not lost.
func TestFullDiskRefusesWritesWithoutElections(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("noSync=%v", noSync), func(t *testing.T) {
			n, faults := startFaulty(t, noSync)
			defer n.Close()
			propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
			propose(t, n, createAt("/before"))
			term := n.Epoch()

			faults.SetFull(true)
			inFlight := make(chan error, 1)
			go func() {
				a, err := n.Propose(context.Background(), createAt("/in-flight"))
				if err == nil {
					err = a.Result.Err
				}
				inFlight <- err
			}()
			waitFor(t, "the disk to be reported full", func() bool { return n.DiskState().Full })
			st := n.DiskState()
			require.Contains(t, st.Cause, "no space left on device")
			for i := 0; i < 20; i++ {
				_, err := n.Propose(context.Background(), createAt(fmt.Sprintf("/refused-%d", i)))
				require.ErrorIs(t, err, ErrDiskFull)
				require.Equal(t, wire.CodeNotReadOnly, wire.CodeOf(err))
			}
			require.True(t, n.IsLeader(), "still leading")
			require.Equal(t, term, n.Epoch(), "no elections while the disk is full")
			n.Read(func(st *State) {
				_, _, err := st.Tree.GetData("/before")
				require.NoError(t, err, "reads go on")
			})
			require.EqualValues(t, 20, n.DiskState().Refused)

			faults.SetFull(false)
			select {
			case err := <-inFlight:
				require.NoError(t, err, "the in-flight write commits when space returns")
			case <-time.After(10 * time.Second):
				t.Fatal("the in-flight write did not complete after space returned")
			}
			require.False(t, n.DiskState().Full)
			propose(t, n, createAt("/after"))
			require.Equal(t, term, n.Epoch())
			n.Read(func(st *State) {
				for _, p := range []string{"/in-flight", "/after"} {
					_, _, err := st.Tree.GetData(p)
					require.NoError(t, err, p)
				}
			})
		})
	}
}

// TestCloseWhileDiskFull: Close does not wait for space.
func TestCloseWhileDiskFull(t *testing.T) {
	n, faults := startFaulty(t, false)
	// Start returns once this node leads, which can be before Raft has
	// appended its new term's no-op; had that append found the disk full,
	// the write below would be refused at once rather than be in flight.
	// A committed write first means every append before it is done.
	propose(t, n, createAt("/before"))
	faults.SetFull(true)
	errc := make(chan error, 1)
	go func() { _, err := n.Propose(context.Background(), createAt("/x")); errc <- err }()
	waitFor(t, "the disk to be reported full", func() bool { return n.DiskState().Full })
	done := make(chan struct{})
	go func() { n.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung on a full disk")
	}
	err := <-errc
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrDiskFull), "the in-flight write fails with the shutdown, not as refused")
}
