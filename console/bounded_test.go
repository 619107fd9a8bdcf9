package console

import (
	"bufio"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// heapNow is the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// padView is a fakeView whose every update weighs about size bytes, so
// that a client that stops reading fills the sockets' buffers quickly.
func padView(size int) *fakeView {
	v := newFakeView()
	v.members[0].Status.ClientAddr = strings.Repeat("x", size)
	return v
}

// stalledStream opens an event stream over a raw connection and never
// reads it: a browser tab frozen or a laptop whose lid was shut.
func stalledStream(t *testing.T, base string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	_, err = conn.Write([]byte("GET " + EventsPath + " HTTP/1.1\r\nHost: console\r\n\r\n"))
	require.NoError(t, err)
	return conn
}

// TestStalledClientsAreCutOff opens 16 streams that never read while the
// console sends an update every millisecond, each 32 KiB: once the
// sockets' buffers are full the hub cuts every one off (after a few dozen
// to a few hundred updates, as the kernel sizes the buffers), the heap
// holds at most about one update per client, and when the clients finally
// go their goroutines end.
func TestStalledClientsAreCutOff(t *testing.T) {
	v := padView(32 << 10)
	c, base := serve(t, v, time.Millisecond)
	goroutines, heap := runtime.NumGoroutine(), heapNow()
	var conns []net.Conn
	for range 16 {
		conns = append(conns, stalledStream(t, base))
	}
	waitFor(t, 20*time.Second, "the hub to cut off every stalled stream", func() bool {
		open, _ := c.hub.streams()
		return open == 0
	})
	grown := int64(heapNow()) - int64(heap)
	t.Logf("%d updates read; heap grew by %d bytes with 16 stalled clients cut off", v.reads.Load(), grown)
	require.Less(t, grown, int64(4<<20), "the heap holds at most a few updates per stalled client")
	for _, conn := range conns {
		conn.Close()
	}
	waitFor(t, 15*time.Second, "the stalled streams' goroutines to end", func() bool {
		return runtime.NumGoroutine() <= goroutines+2
	})
}

// TestStreamChurnDoesNotLeak opens and drops 2 000 streams, one after
// another, each after its first update, while the console refreshes every
// millisecond (thousands of updates): nothing stays behind, neither
// streams, nor goroutines, nor heap.
func TestStreamChurnDoesNotLeak(t *testing.T) {
	v := padView(1 << 10)
	c, base := serve(t, v, time.Millisecond)
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	churn := func(n int) {
		for range n {
			resp, err := client.Get(base + EventsPath)
			require.NoError(t, err)
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "event: state\n", line)
			resp.Body.Close()
		}
	}
	churn(100) // warm up: the pools and buffers the runtime keeps
	waitFor(t, 10*time.Second, "the streams to close", func() bool { open, _ := c.hub.streams(); return open == 0 })
	goroutines, heap, reads := runtime.NumGoroutine(), heapNow(), v.reads.Load()
	churn(2000)
	waitFor(t, 10*time.Second, "the streams to close and the refresh to stop", func() bool {
		open, running := c.hub.streams()
		return open == 0 && !running
	})
	waitFor(t, 10*time.Second, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines+2 })
	grown := int64(heapNow()) - int64(heap)
	t.Logf("%d updates read over 2000 streams; heap grew by %d bytes", v.reads.Load()-reads, grown)
	require.Less(t, grown, int64(1<<20), "2000 streams left nothing on the heap")
}
