package server

import (
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/consensus"
)

// fourLetterCommands maps each word to the function that writes its output.
var fourLetterCommands = map[string]func(s *Server, w io.Writer){
	"ruok": func(_ *Server, w io.Writer) { io.WriteString(w, "imok") },
	"srvr": (*Server).writeSrvr,
	"stat": (*Server).writeStat,
	"conf": (*Server).writeConf,
	"cons": (*Server).writeCons,
	"crst": func(s *Server, w io.Writer) { s.resetConnStats(); io.WriteString(w, "Connection stats reset.\n") },
	"srst": func(s *Server, w io.Writer) { s.stats.reset(); io.WriteString(w, "Server stats reset.\n") },
	"envi": (*Server).writeEnvi,
	"mntr": (*Server).writeMntr,
	"wchs": (*Server).writeWchs,
	"wchc": (*Server).writeWchc,
	"wchp": (*Server).writeWchp,
	"dump": (*Server).writeDump,
	"isro": func(s *Server, w io.Writer) {
		if s.readOnlyMode() {
			io.WriteString(w, "ro")
		} else {
			io.WriteString(w, "rw")
		}
	},
	"dirs": func(s *Server, w io.Writer) {
		data, log := s.dirSizes()
		fmt.Fprintf(w, "datadir_size: %d\nlogdir_size: %d\n", data, log)
	},
	"gtmk": func(s *Server, w io.Writer) { fmt.Fprint(w, s.TraceMask()) },
	"stmk": func(_ *Server, w io.Writer) { io.WriteString(w, "306") },
	"hash": func(_ *Server, w io.Writer) {},
}

// fourLetter answers a four-letter word and leaves closing to the caller.
func (s *Server) fourLetter(nc net.Conn, cmd string) {
	nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	fn, ok := fourLetterCommands[cmd]
	if !ok {
		return
	}
	if !s.cfg.FourLetterAllowed(cmd) {
		fmt.Fprintf(nc, "%s is not executed because it is not in the whitelist.\n", cmd)
		return
	}
	if cmd != "ruok" && cmd != "isro" && cmd != "envi" && cmd != "conf" && !s.Serving() {
		io.WriteString(nc, "This ZooKeeper instance is not currently serving requests")
		if s.node.Removed() {
			io.WriteString(nc, ": a reconfig removed it from the ensemble (reconfig -add takes it back)")
		}
		io.WriteString(nc, "\n")
		return
	}
	var b strings.Builder
	fn(s, &b)
	io.WriteString(nc, b.String())
}

// mode is the Mode line of srvr: standalone, leader, follower, observer,
// or read-only while serving read-only clients without a quorum.
func (s *Server) mode() string {
	if s.readOnlyMode() {
		return "read-only"
	}
	return s.node.Role()
}

func (s *Server) nodeCount() (n int, zxid int64) {
	s.node.Read(func(st *consensus.State) { n, zxid = st.Tree.NodeCount(), st.LastZxid })
	return n, zxid
}

func (s *Server) outstanding() int {
	n := 0
	for _, c := range s.connections() {
		n += c.outstanding()
	}
	return n
}

func (s *Server) writeServerStats(w io.Writer, clients bool) {
	if s.readOnlyMode() {
		io.WriteString(w, "READ-ONLY mode; serving only read-only clients\n")
	}
	fmt.Fprintf(w, "Zookeeper version: %s, built on %s\n", Version, buildStamp)
	all := s.connections()
	if clients {
		io.WriteString(w, "Clients:\n")
		for _, c := range all {
			fmt.Fprintf(w, " /%s[%d](queued=%d,recved=%d,sent=%d)\n", c.nc.RemoteAddr(), interestOps(c),
				c.outstanding(), c.cstats.in.Load(), c.cstats.out.Load())
		}
		io.WriteString(w, "\n")
	}
	min, avg, max := s.stats.lat.snapshot()
	nodes, zxid := s.nodeCount()
	fmt.Fprintf(w, "Latency min/avg/max: %d/%.4f/%d\n", min, avg, max)
	fmt.Fprintf(w, "Received: %d\nSent: %d\n", s.stats.packetsIn.Load(), s.stats.packetsOut.Load())
	fmt.Fprintf(w, "Connections: %d\nOutstanding: %d\n", len(all), s.outstanding())
	fmt.Fprintf(w, "Zxid: 0x%x\nMode: %s\nNode count: %d\n", zxid, s.mode(), nodes)
}

// interestOps is the NIO interest set ZooKeeper prints per connection:
// 1 (read) once a session is established, 0 before.
func interestOps(c *conn) int {
	if c.sessionID() != 0 {
		return 1
	}
	return 0
}

func (s *Server) writeSrvr(w io.Writer) { s.writeServerStats(w, false) }
func (s *Server) writeStat(w io.Writer) { s.writeServerStats(w, true) }

func (s *Server) writeConf(w io.Writer) {
	c := s.cfg
	fmt.Fprintf(w, "clientPort=%d\nsecureClientPort=-1\n", s.port())
	data, log := s.dirSizes()
	fmt.Fprintf(w, "dataDir=%s\ndataDirSize=%d\ndataLogDir=%s\ndataLogSize=%d\n", c.DataDir, data, c.DataLogDir, log)
	fmt.Fprintf(w, "tickTime=%d\nmaxClientCnxns=%d\n", c.TickTime.Milliseconds(), c.MaxClientCnxns)
	fmt.Fprintf(w, "minSessionTimeout=%d\nmaxSessionTimeout=%d\n", c.MinSession().Milliseconds(), c.MaxSession().Milliseconds())
	fmt.Fprintf(w, "clientPortListenBacklog=-1\nserverId=%d\n", c.ServerID)
}

func (s *Server) port() int {
	if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return s.cfg.ClientPort
}

// sessionConns are the connections with an established session, sorted by
// address, for the listings shown in that order (cons). It formats every
// remote address to sort them (tens of ms at 20,000 connections): to count
// them, use sessionConnCount.
func (s *Server) sessionConns() []*conn {
	var out []*conn
	for _, c := range s.connections() {
		if c.sessionID() != 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].nc.RemoteAddr().String() < out[j].nc.RemoteAddr().String() })
	return out
}

func (s *Server) writeCons(w io.Writer) {
	for _, c := range s.sessionConns() {
		min, avg, max := c.cstats.lat.snapshot()
		fmt.Fprintf(w, " /%s[1](queued=%d,recved=%d,sent=%d,sid=0x%x,lop=NA,est=%d,to=%d,",
			c.nc.RemoteAddr(), c.outstanding(), c.cstats.in.Load(), c.cstats.out.Load(),
			c.sessionID(), c.established, c.timeout.Load())
		fmt.Fprintf(w, "lcxid=0x%x,lzxid=0x%x,lresp=%d,llat=%d,minlat=%d,avglat=%d,maxlat=%d)\n",
			c.cstats.lastXid.Load(), c.cstats.lastZxid.Load(), c.cstats.lastResponse.Load(),
			max, min, int64(avg), max)
	}
	io.WriteString(w, "\n")
}

func (s *Server) resetConnStats() {
	for _, c := range s.connections() {
		c.cstats.lat.reset()
	}
}

func (s *Server) writeEnvi(w io.Writer) {
	io.WriteString(w, "Environment:\n")
	for _, e := range s.Environment() {
		fmt.Fprintf(w, "%s=%s\n", e.Key, e.Value)
	}
}

func (s *Server) writeWchs(w io.Writer) {
	conns, paths, total := s.watches.summary()
	fmt.Fprintf(w, "%d connections watching %d paths\nTotal watches:%d\n", conns, paths, total)
}

// writeWchc and writeWchp build their dumps with appends into a buffer of
// the right size (at most, for wchp) rather than a formatted print per
// line: a million lines each at a million watches, and the garbage of a
// growing buffer would cost garbage collections over the watches.
func (s *Server) writeWchc(w io.Writer) {
	bySession := s.watches.bySession()
	size := 1
	for _, paths := range bySession {
		size += len("0x\n") + 16
		for _, p := range paths {
			size += len(p) + 2
		}
	}
	b := make([]byte, 0, size)
	for _, id := range slices.Sorted(maps.Keys(bySession)) {
		b = append(strconv.AppendInt(append(b, "0x"...), id, 16), '\n')
		for _, p := range bySession[id] {
			b = append(append(append(b, '\t'), p...), '\n')
		}
	}
	w.Write(append(b, '\n'))
}

func (s *Server) writeWchp(w io.Writer) {
	byPath := s.watches.byPath()
	size := 1
	for p, ids := range byPath {
		size += len(p) + 1 + len(ids)*len("\t0x\n0123456789abcdef")
	}
	b := make([]byte, 0, size)
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		b = append(append(b, p...), '\n')
		for _, id := range byPath[p] {
			b = append(strconv.AppendInt(append(b, "\t0x"...), id, 16), '\n')
		}
	}
	w.Write(append(b, '\n'))
}

// javaDate formats t as java.util.Date.toString does, as ZooKeeper's dumps print times.
func javaDate(t time.Time) string { return t.UTC().Format("Mon Jan 02 15:04:05 MST 2006") }

// writeExpirySets prints sessions grouped by expiry time, in the layout of
// ZooKeeper's ExpiryQueue.dump.
func writeExpirySets(w io.Writer, deadlines map[int64]time.Time) {
	sets := make(map[time.Time][]int64)
	for id, at := range deadlines {
		sets[at] = append(sets[at], id)
	}
	fmt.Fprintf(w, "Sets (%d)/(%d):\n", len(sets), len(deadlines))
	for _, at := range slices.SortedFunc(maps.Keys(sets), time.Time.Compare) {
		ids := sets[at]
		slices.Sort(ids)
		fmt.Fprintf(w, "%d expire at %s:\n", len(ids), javaDate(at))
		for _, id := range ids {
			fmt.Fprintf(w, "\t0x%x\n", id)
		}
	}
}

func (s *Server) writeDump(w io.Writer) {
	io.WriteString(w, "SessionTracker dump:\nSession ")
	var deadlines map[int64]time.Time
	if t := s.currentTracker(); t != nil {
		deadlines = t.Deadlines()
	}
	writeExpirySets(w, deadlines)
	var eph map[int64][]string
	s.node.Read(func(st *consensus.State) { eph = st.Tree.EphemeralSessions() })
	fmt.Fprintf(w, "ephemeral nodes dump:\nSessions with Ephemerals (%d):\n", len(eph))
	for _, id := range slices.Sorted(maps.Keys(eph)) {
		fmt.Fprintf(w, "0x%x:\n", id)
		for _, p := range eph[id] {
			fmt.Fprintf(w, "\t%s\n", p)
		}
	}
	io.WriteString(w, "Connections dump:\nConnections ")
	conns := make(map[int64]time.Time)
	for _, c := range s.connections() { // writeExpirySets orders them: no sorted listing
		if id := c.sessionID(); id != 0 {
			conns[id] = s.clock.Now().Add(time.Duration(c.timeout.Load()) * time.Millisecond)
		}
	}
	writeExpirySets(w, conns)
}

func sessionHex(id int64) string { return fmt.Sprintf("0x%x", id) }
