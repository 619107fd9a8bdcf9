package server

import (
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// diskWatch logs the log disk's state changes: one ERROR when it is found
// full (writes refused from then on), one INFO when writes resume. The
// role watcher calls check every tick.
type diskWatch struct{ full bool }

func (d *diskWatch) check(s *Server) {
	st := s.node.DiskState()
	switch {
	case st.Full && !d.full:
		s.log.Error("log disk full: refusing writes and new sessions until space returns; reads and existing sessions continue",
			"dataLogDir", s.cfg.DataLogDir, "cause", st.Cause, "since", st.Since.Format(time.RFC3339))
	case !st.Full && d.full:
		s.log.Info("log disk has space again: writes resume", "dataLogDir", s.cfg.DataLogDir, "refused_writes", st.Refused)
	}
	d.full = st.Full
}

// diskFullRows are mntr's lines about the log disk.
func (s *Server) diskFullRows() []MonitorRow {
	st := s.node.DiskState()
	full := 0
	if st.Full {
		full = 1
	}
	return []MonitorRow{
		{"disk_full", full},
		{"zkraft_disk_full_refused_writes", st.Refused},
	}
}

// DiskState reports whether the server's log disk is full (see
// consensus.DiskState); zero before Start.
func (s *Server) DiskState() consensus.DiskState {
	if s.node == nil {
		return consensus.DiskState{}
	}
	return s.node.DiskState()
}
