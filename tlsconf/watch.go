package tlsconf

import "time"

// The watcher polls rather than using inotify (fsnotify). Polling sees
// every way a store gets replaced: in-place writes, rename over the file,
// and the symlink swap Kubernetes uses for mounted secrets, which changes a
// directory entry two levels up that a watch on the file's directory
// misses; it works the same on network and overlay filesystems; and it
// needs no dependency. The cost is reading a few small files once a second.
// Contents are compared by hash rather than by mtime, because a rewrite
// within the filesystem's timestamp granularity keeps the same mtime.

// watch reloads whenever a watched file's contents differ from what the
// last reload read. A failed reload is logged once: the fingerprints it
// recorded match the bad files, so nothing is retried until they change,
// and further failures before the next success are logged at debug level.
func (s *Source) watch(every time.Duration) {
	defer close(s.done)
	if len(s.files) == 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.poll()
		}
	}
}

func (s *Source) poll() {
	defer s.polls.Add(1)
	now := readSnap(s.files).fingerprints()
	s.mu.Lock()
	changed := !sameFingerprints(now, s.seen)
	s.mu.Unlock()
	if !changed {
		return
	}
	first, err := s.reload()
	switch {
	case err != nil && first:
		s.log.Error("tls: reloading key material failed; still using the previous material", "err", err)
	case err != nil:
		s.log.Debug("tls: reloading key material still fails", "err", err)
	}
}
