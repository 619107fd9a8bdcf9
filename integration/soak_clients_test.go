package integration

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/linearizable"
	"github.com/zkraft/zkraft/wire"
)

// The soak's other clients: sessions holding ephemerals, watchers, and
// slow readers that pipeline requests.

// ephClient holds one ephemeral znode on its session and checks every
// 200 ms that it is still there. The znode may go only with the session:
// when the client finds it gone while its session id is unchanged (the
// session never expired), that is a finding. An expiry itself is counted
// (a session whose client cannot reach a quorum within its timeout, e.g.
// while its server is cut off, legitimately expires) and the znode is
// created again on the new session.
type ephClient struct {
	c        *zk.Conn
	path     string
	mu       sync.Mutex
	sid      int64 // the session that owns path, 0 while it is being re-created
	expiries atomic.Int64
}

func (e *ephClient) current() (sid int64, path string, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sid, e.path, e.sid != 0
}

func (s *soak) startEph(i int) *ephClient {
	e := &ephClient{c: s.connect(), path: fmt.Sprintf("/soak/e/e%d", i)}
	if !e.create() {
		s.t.Fatalf("soak: create ephemeral %s failed", e.path)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for !s.stopped() {
			time.Sleep(200 * time.Millisecond) // the check's pace
			s.ephCheck(e)
		}
	}()
	return e
}

// create makes the ephemeral on the client's current session.
func (e *ephClient) create() bool {
	sid := e.c.SessionID()
	_, err := e.c.Create(e.path, nil, zk.FlagEphemeral, openACL)
	if err != nil && err != zk.ErrNodeExists { // exists: an earlier attempt whose reply was lost
		return false
	}
	e.mu.Lock()
	e.sid = sid
	e.mu.Unlock()
	return true
}

func (s *soak) ephCheck(e *ephClient) {
	t0 := time.Now()
	ok, st, err := e.c.Exists(e.path)
	code, _ := linearizable.CodeOf(err)
	s.countOp("eph-check", code, time.Since(t0))
	sid, _, held := e.current()
	switch {
	case err != nil:
		return
	case !held: // an earlier re-create failed
		e.create()
	case e.c.SessionID() != sid: // the session expired and a new one began
		e.expiries.Add(1)
		e.mu.Lock()
		e.sid = 0
		e.mu.Unlock()
		e.create()
	case !ok:
		s.found.add("EPHEMERAL LOST: %s vanished while its session 0x%x lives", e.path, sid)
		e.create()
	case st.EphemeralOwner != sid:
		s.found.add("ephemeral %s is owned by 0x%x, not by its creator 0x%x", e.path, st.EphemeralOwner, sid)
	}
}

// watchClient keeps a data watch on writer 0's counter. After every
// NodeDataChanged it reads the znode again (setting the next watch): on
// the same connection the version must be past the one read when the
// watch was set, since the event is for a later change and the server
// sends it before the data. Across a reconnect that need not hold:
// notifications carry no zxid (-1, as in ZooKeeper 3.8), so the client's
// lastZxid does not advance with the event, and it may resume on a server
// that has not applied the change yet. There the client does what a
// ZooKeeper client must, sync then read, and that read must be past it.
// Versions read on one session never go back.
type watchClient struct {
	c                        *zk.Conn
	conns                    atomic.Int64 // sessions (re-)established: a change means a reconnect
	events, rearms, resynced atomic.Int64
}

func (s *soak) startWatcher(i int) *watchClient {
	w := &watchClient{}
	w.c = s.connect(zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
			w.conns.Add(1)
		}
	}))
	path := s.writers[0].counter()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		last, afterEvent := int32(-1), false
		conns := w.conns.Load()
		for !s.stopped() {
			t0 := time.Now()
			_, st, ch, err := w.c.GetW(path)
			code, _ := linearizable.CodeOf(err)
			s.countOp("watch-rearm", code, time.Since(t0))
			if err != nil {
				time.Sleep(50 * time.Millisecond) // reconnecting; retry pace
				continue
			}
			w.rearms.Add(1)
			version := st.Version
			reconnected := w.conns.Load() != conns
			if afterEvent && version <= last && reconnected {
				version = s.watchResync(w, path, last)
			}
			if afterEvent && version <= last {
				s.found.add("watcher %d: NodeDataChanged on %s, then read version %d, not past %d (reconnected: %v)", i, path, version, last, reconnected)
			} else if version < last {
				s.found.add("watcher %d: %s went back from version %d to %d on one session", i, path, last, version)
			}
			last, afterEvent, conns = max(last, version), false, w.conns.Load()
			select {
			case ev := <-ch:
				switch ev.Type {
				case zk.EventNodeDataChanged:
					w.events.Add(1)
					afterEvent = true
				case zk.EventNotWatching: // the session ended; the watch is gone
				default:
					s.found.add("watcher %d: unexpected event %v on %s", i, ev.Type, path)
				}
			case <-s.stop:
			}
		}
	}()
	return w
}

// watchResync is sync then get, after a reconnect put the watcher on a
// server behind the change it was told of. It returns the version read,
// or last+1 when the connection broke again (nothing to judge).
func (s *soak) watchResync(w *watchClient, path string, last int32) int32 {
	w.resynced.Add(1)
	if _, err := w.c.Sync(path); err != nil {
		return last + 1
	}
	_, st, err := w.c.Get(path)
	if err != nil {
		return last + 1
	}
	return st.Version
}

// slowClient speaks the protocol itself (go-zookeeper reads as fast as it
// can): it sends a batch of getData requests for a 16 KiB znode at once,
// then reads the replies one at a time with a pause between them, so the
// server's writes to it back up. Every reply must come, in xid order, with
// the whole data. A broken connection (its server was killed or cut off)
// makes it open a new session on the next server.
type slowClient struct {
	batches, replies, reconnects atomic.Int64
}

const (
	slowPath      = "/soak/slow"
	slowDataLen   = 16 << 10
	slowBatch     = 100
	slowReadPause = 2 * time.Millisecond
)

func (s *soak) startSlow(i int) *slowClient {
	sc := &slowClient{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var rc *rawClient
		for next := i; !s.stopped(); {
			if rc == nil {
				var err error
				if rc, err = connectRaw(s.addrs[next%len(s.addrs)], 4000); err != nil {
					rc = nil
					next++
					time.Sleep(100 * time.Millisecond) // that server has no quorum or is down; try the next
					continue
				}
			}
			if !s.slowBatch(i, sc, rc) {
				rc.Close()
				rc = nil
				sc.reconnects.Add(1)
				next++
			}
		}
		if rc != nil {
			rc.CloseSession()
			rc.Close()
		}
	}()
	return sc
}

// slowBatch sends one pipelined batch and reads its replies slowly; it
// returns false when the connection broke.
func (s *soak) slowBatch(i int, sc *slowClient, rc *rawClient) bool {
	t0 := time.Now()
	var frames []byte
	xids := make([]int32, slowBatch)
	for j := range xids {
		xids[j] = rc.NextXid()
		frames = wire.AppendFrame(frames, &wire.RequestHeader{Xid: xids[j], Type: wire.OpGetData}, &wire.PathWatchRequest{Path: slowPath})
	}
	if err := rc.WriteRaw(frames); err != nil {
		s.countOp("slow-batch", "unknown", 0)
		return false
	}
	for j := 0; j < slowBatch; {
		time.Sleep(slowReadPause) // a slow reader: this is the load, not synchronisation
		f, err := rc.ReadFrame(rawTimeout)
		if err != nil {
			s.countOp("slow-batch", "unknown", 0)
			return false
		}
		if f.IsEvent() {
			continue
		}
		var resp wire.GetDataResponse
		switch {
		case f.Hdr.Xid != xids[j]:
			s.found.add("slow client %d: reply xid %d where %d was due (replies out of order)", i, f.Hdr.Xid, xids[j])
			return false
		case f.Hdr.Err != wire.CodeOK:
			s.found.add("slow client %d: getData %s answered %v", i, slowPath, f.Hdr.Err)
		case wire.Unmarshal(f.Body, &resp, 0) != nil || len(resp.Data) != slowDataLen:
			s.found.add("slow client %d: getData %s reply of %d bytes is not the %d-byte data", i, slowPath, len(f.Body), slowDataLen)
		}
		sc.replies.Add(1)
		j++
	}
	sc.batches.Add(1)
	s.countOp("slow-batch", "ok", time.Since(t0))
	return true
}
