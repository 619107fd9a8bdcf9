package consensus

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Freeing a large file is not free. Deleting a file gives its blocks back
// to the file system, and on a file system mounted with discard (ext4
// here, and the advice for many cloud disks) the kernel tells the device
// about every freed block before the syscall returns: on this machine
// about 0.8 ms per MiB. Worse, while it does, a sync of any other file on
// the same file system waits: an fdatasync of 200 bytes took up to 230 ms
// while a 1 GiB file was unlinked, against 3 ms before (docs/scale.md).
// The stores delete large files at the worst moment, right after a
// snapshot: the oldest snapshot (1.4 GB at 10M znodes) and the log's
// segments the snapshot made obsolete (64 MiB each, a dozen after a 10M
// snapshot), and raft-wal deletes its segments under the lock its appends
// take, so every write waited for the whole deletion.
//
// The reclaimer takes that work off the callers. A store renames what it
// deletes out of its own names (a rename moves a directory entry, not the
// blocks) and hands the path to the reclaimer, which shrinks each file a
// few MiB at a time with a pause between steps, so that another file's
// sync waits for one step at most (4 MiB steps: fdatasync at most 8-12 ms
// while freeing 1 GiB), then removes it. One reclaimer serves the process,
// since the servers of a process share their disks; its goroutine runs
// only while it has work.
//
// A crash can leave renamed files behind: each store removes its own at
// the next open (removeReclaimed), and raft-wal removes segment files its
// metadata does not list, so nothing renamed needs a directory sync.
type reclaimer struct {
	mu      sync.Mutex
	queue   []string
	running bool
	idle    *sync.Cond // broadcast when the queue is empty and nothing runs
	step    int64
	pause   func() // between two steps
}

const (
	reclaimStep  = 4 << 20
	reclaimPause = 2 * time.Millisecond
	// reclaimedSuffix ends the name of what a store renamed for the
	// reclaimer (raft-wal lists only names ending in ".wal").
	reclaimedSuffix = ".reclaim"
)

var fileReclaimer = newReclaimer(reclaimStep, func() { time.Sleep(reclaimPause) })

func newReclaimer(step int64, pause func()) *reclaimer {
	r := &reclaimer{step: step, pause: pause}
	r.idle = sync.NewCond(&r.mu)
	return r
}

// retire renames path to to, out of its store's names, and queues it for
// freeing. Once it returns, path no longer exists.
func (r *reclaimer) retire(path, to string) error {
	if err := os.Rename(path, to); err != nil {
		return err
	}
	r.add(to)
	return nil
}

// add queues path, a file or a directory, for freeing.
func (r *reclaimer) add(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queue = append(r.queue, path)
	if !r.running {
		r.running = true
		go r.run()
	}
}

func (r *reclaimer) run() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.running = false
			r.idle.Broadcast()
			r.mu.Unlock()
			return
		}
		path := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		r.free(path)
	}
}

// wait returns once everything queued is freed.
func (r *reclaimer) wait() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.running {
		r.idle.Wait()
	}
}

// free shrinks the regular files at path (the file, or those directly in
// the directory) and then removes path. Errors are left: what stays is
// removed at the store's next open.
func (r *reclaimer) free(path string) {
	info, err := os.Lstat(path)
	if err != nil {
		return
	}
	if info.IsDir() {
		entries, _ := os.ReadDir(path)
		for _, e := range entries {
			if e.Type().IsRegular() {
				r.shrink(filepath.Join(path, e.Name()))
			}
		}
		os.RemoveAll(path)
		return
	}
	if info.Mode().IsRegular() {
		r.shrink(path)
	}
	os.Remove(path)
}

// shrink truncates the file at path to nothing, step bytes at a time.
func (r *reclaimer) shrink(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return
	}
	for size := info.Size(); size > 0; {
		size = max(0, size-r.step)
		if f.Truncate(size) != nil {
			return
		}
		if size > 0 {
			r.pause()
		}
	}
}

// removeReclaimed queues what a crash left renamed for the reclaimer in
// dir.
func (r *reclaimer) removeReclaimed(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), reclaimedSuffix) {
			r.add(filepath.Join(dir, e.Name()))
		}
	}
}
