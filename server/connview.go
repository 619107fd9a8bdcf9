package server

// Read-only views of what connections hold, for operators and tests (the
// hostile-client suite in integration/ asserts on them).

// UnsentReplyBytes returns the bytes of replies and watch events that all
// connections hold because their clients have not read them yet; it never
// exceeds TotalClientOutputLimit.
func (s *Server) UnsentReplyBytes() int64 { return s.outputHeld.Load() }

// OpenConnections returns the number of client connections open now,
// with or without a session.
func (s *Server) OpenConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
