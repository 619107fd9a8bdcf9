package server

// connWatches lists the paths one connection watches, for removeConn and
// wchs's count of connections. It is a slice, not a set: a pointer is 8 bytes
// where a map entry costs ~20 (1,000,000 data watches over 10,000
// connections: 19.5 MB in map[*watchedPath]struct{} sets). The price is
// that a cleared watch is not found and taken out of the slice: its entry
// goes stale (the path no longer has the connection's bits, or the path
// left the manager) and, when the watch is set again, the path is listed
// twice. Readers check the path's bits for the connection, so stale
// entries read as nothing and duplicates do no harm; live counts the paths
// with bits, and the slice is compacted once stale entries outnumber the
// live ones, so it stays within 2 × live + staleSlack entries.
type connWatches struct {
	paths []*watchedPath
	live  int // paths on which the connection has bits
}

// staleSlack is how many entries beyond twice the live ones a list
// tolerates before compacting: small lists are not worth it.
const staleSlack = 16

// add lists wp, on which c just got its first bits.
func (cw *connWatches) add(c *conn, wp *watchedPath) {
	cw.live++
	cw.paths = append(cw.paths, wp)
	if len(cw.paths) > 2*cw.live+staleSlack {
		cw.compact(c)
	}
}

// compact drops stale entries and duplicates from the list.
func (cw *connWatches) compact(c *conn) {
	seen := make(map[*watchedPath]struct{}, cw.live)
	kept := cw.paths[:0]
	for _, wp := range cw.paths {
		if _, dup := seen[wp]; dup || wp.conns[c] == 0 {
			continue
		}
		seen[wp] = struct{}{}
		kept = append(kept, wp)
	}
	clear(cw.paths[len(kept):]) // let the dropped paths be collected
	cw.paths = kept
}
