package server

import (
	"cmp"
	"path"
	"slices"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/wire"
)

// SessionRow is one replicated session as the console's sessions table
// shows it.
type SessionRow struct {
	ID int64
	// Timeout is the negotiated timeout in milliseconds.
	Timeout int32
	// ExpiresAt is when the leader's tracker will expire the session (unix
	// ms); 0 on a server that does not lead, which tracks no expiry.
	ExpiresAt int64
	// Local says the session is connected to this server.
	Local bool
	// Ephemerals are the paths of the nodes it owns, sorted.
	Ephemerals []string
	// Watches are the paths it data-watches on this server, sorted (a
	// session's watches live on the server it is connected to).
	Watches []string
}

// SessionTable lists every replicated session by id, with its ephemerals,
// its expiry (on the leader) and its watches on this server, for an HTTP
// reader (ReaderIDs): a path is listed only where the reader may read its
// parent, as getChildren there would show its name.
func (s *Server) SessionTable(cred AdminCredentials) ([]SessionRow, error) {
	ids, err := s.ReaderIDs(cred)
	if err != nil {
		return nil, err
	}
	rows := s.sessionRows()
	s.node.Read(func(st *consensus.State) {
		hidden := func(p string) bool { return st.Tree.CheckACL(path.Dir(p), wire.PermRead, ids) != nil }
		for i := range rows {
			rows[i].Ephemerals = slices.DeleteFunc(rows[i].Ephemerals, hidden)
			rows[i].Watches = slices.DeleteFunc(slices.Clone(rows[i].Watches), hidden)
		}
	})
	return rows, nil
}

// sessionRows is SessionTable for a reader who may read everything.
func (s *Server) sessionRows() []SessionRow {
	if s.node == nil {
		return []SessionRow{}
	}
	eph := s.Ephemerals()
	watches := s.WatchesBySession()
	expiry := map[int64]int64{}
	for at, ids := range s.SessionExpiries() {
		for _, id := range ids {
			expiry[id] = at
		}
	}
	infos := s.Sessions()
	rows := make([]SessionRow, 0, len(infos))
	for _, in := range infos {
		paths := slices.Clone(eph[in.ID])
		slices.Sort(paths)
		rows = append(rows, SessionRow{
			ID: in.ID, Timeout: in.Timeout, ExpiresAt: expiry[in.ID], Local: s.HasSession(in.ID),
			Ephemerals: paths, Watches: watches[in.ID],
		})
	}
	slices.SortFunc(rows, func(a, b SessionRow) int { return cmp.Compare(a.ID, b.ID) })
	return rows
}
