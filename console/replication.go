package console

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/server"
)

// "Replication, step by step" (assets/replication.js): the messages
// between the servers, each labelled with its ZAB phase, the zxids it
// carries and the client write it carries ("op": "create /x", ...),
// played back in the page at a chosen speed, in the order they were sent. The page polls
// ReplicationPath with its cursors; each poll keeps every member
// recording for a few seconds (server.Server.WatchReplication), so
// nothing is recorded once no page asks. The server keeps no state per
// page: the cursors travel in the query.

// ReplicationView is what the replication view reads; *server.Server
// implements it. A View without it has no replication route (404).
type ReplicationView interface {
	WatchReplication()
	Replication(after map[int64]server.TraceCursor, limit int) server.ReplicationTrace
}

var _ ReplicationView = (*server.Server)(nil)

// ReplicationPath answers the members' messages after the cursors
// given as ?after=id:run:seq,id:run:seq (none: everything kept).
const ReplicationPath = Prefix + "api/replication"

const (
	// replicationLimit is how many of each member's messages one answer
	// carries by default, and at most (?limit=).
	replicationLimit    = 2000
	replicationMaxLimit = 4096
)

// replicationAnswer is ReplicationPath's JSON.
type replicationAnswer struct {
	// Server is the answering server's id (0 standalone).
	Server int64     `json:"server"`
	Time   time.Time `json:"time"`
	server.ReplicationTrace
}

// replication serves ReplicationPath.
func (c *Console) replication(w http.ResponseWriter, r *http.Request) {
	rv, ok := c.view.(ReplicationView)
	if !ok {
		http.NotFound(w, r)
		return
	}
	after, err := parseCursors(r.URL.Query().Get("after"))
	if err != nil {
		writeError(w, err)
		return
	}
	limit, err := parseLimit(r.URL.Query().Get("limit"), replicationLimit, replicationMaxLimit)
	if err != nil {
		writeError(w, err)
		return
	}
	// Recording costs every member work: only a verified caller turns it
	// on; others see what is being recorded for someone else, if anything.
	if c.authenticated(r) {
		rv.WatchReplication()
	}
	tr := rv.Replication(after, limit)
	ans := replicationAnswer{Time: time.Now(), ReplicationTrace: tr}
	if len(tr.Members) > 0 {
		ans.Server = tr.Members[0].ID
	}
	writeJSON(w, http.StatusOK, ans)
}

// parseCursors reads "id:run:seq,..." (at most 64 members).
func parseCursors(s string) (map[int64]server.TraceCursor, error) {
	out := map[int64]server.TraceCursor{}
	if s == "" {
		return out, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 64 {
		return nil, fmt.Errorf("%w: too many cursors", ErrBadRequest)
	}
	for _, p := range parts {
		f := strings.Split(p, ":")
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: a cursor is id:run:seq, not %q", ErrBadRequest, p)
		}
		id, err1 := strconv.ParseInt(f[0], 10, 64)
		run, err2 := strconv.ParseInt(f[1], 10, 64)
		seq, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%w: a cursor is id:run:seq in decimal, not %q", ErrBadRequest, p)
		}
		out[id] = server.TraceCursor{Run: run, Seq: seq}
	}
	return out, nil
}

// parseLimit reads a positive limit, def when s is empty, capped at most.
func parseLimit(s string, def, most int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, ErrBadLimit
	}
	return min(n, most), nil
}
