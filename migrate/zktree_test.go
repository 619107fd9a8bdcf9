package migrate_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// seen is one znode as a client reads it.
type seen struct {
	data []byte
	stat zk.Stat
	acl  []zk.ACL
}

// connect opens a go-zookeeper session on addr with the given timeout,
// authenticated as the digest user the tree's ACLs name, and waits for it.
func connect(t *testing.T, addr string, timeout time.Duration) *zk.Conn {
	t.Helper()
	c, ev, err := zk.Connect([]string{addr}, timeout, zk.WithLogInfo(false))
	require.NoError(t, err)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				require.NoError(t, c.AddAuth("digest", []byte("super:test")))
				return c
			}
		case <-deadline:
			c.Close()
			t.Fatalf("no session on %s", addr)
		}
	}
}

// readTree reads every znode reachable from "/" with 64 requests in
// flight: data, Stat, ACL. The client must be allowed to read everything.
func readTree(t *testing.T, c *zk.Conn) map[string]seen {
	t.Helper()
	var (
		mu   sync.Mutex
		out  = map[string]seen{}
		errs []error
		wg   sync.WaitGroup
	)
	work := make(chan string, 1<<20)
	var visit func(p string)
	visit = func(p string) {
		defer wg.Done()
		data, st, err := c.Get(p)
		var acl []zk.ACL
		if err == nil {
			acl, _, err = c.GetACL(p)
		}
		var kids []string
		if err == nil && st.NumChildren > 0 {
			kids, _, err = c.Children(p)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			return
		}
		out[p] = seen{data: data, stat: *st, acl: acl}
		prefix := strings.TrimSuffix(p, "/")
		for _, k := range kids {
			wg.Add(1)
			work <- prefix + "/" + k
		}
	}
	for range 64 {
		go func() {
			for p := range work {
				visit(p)
			}
		}()
	}
	wg.Add(1)
	work <- "/"
	wg.Wait()
	close(work)
	require.Empty(t, errs)
	return out
}

// requireSameTree compares two trees read by readTree: every path, data,
// ACL and Stat field; skip lists paths left out on both sides.
func requireSameTree(t *testing.T, want, got map[string]seen, skip ...string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if slices.Contains(skip, p) {
			continue
		}
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, p+": missing")
		case string(w.data) != string(g.data):
			diffs = append(diffs, fmt.Sprintf("%s: data %q, want %q", p, clip(g.data), clip(w.data)))
		case w.stat != g.stat:
			diffs = append(diffs, fmt.Sprintf("%s: stat %+v, want %+v", p, g.stat, w.stat))
		case !slices.Equal(w.acl, g.acl):
			diffs = append(diffs, fmt.Sprintf("%s: acl %v, want %v", p, g.acl, w.acl))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok && !slices.Contains(skip, p) {
			diffs = append(diffs, p+": not expected")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 20 {
		diffs = append(diffs[:20], fmt.Sprintf("... and %d more", len(diffs)-20))
	}
	require.Empty(t, diffs, "%d nodes wanted, %d got", len(want), len(got))
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
