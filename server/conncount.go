package server

// sessionConnCount is the number of open connections with an established
// session: len(s.sessionConns()) without building, sorting or allocating
// that list. It walks the registry under s.mu, as connections does, and is
// what the monitoring paths that only count call (mntr, ServerStats,
// Status): at 20,000 connections sessionConns costs tens of milliseconds,
// most of it formatting remote addresses to sort them.
func (s *Server) sessionConnCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.sessionID() != 0 {
			n++
		}
	}
	return n
}
