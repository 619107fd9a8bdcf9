package integration

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/internal/realzk"
)

// Four-letter words: exact output where it is fixed text, otherwise only
// the keys and the kind of each value (numbers, paths and versions differ
// between the servers by nature).

func init() {
	addScenarios(scenario{"four_letter_words", diffFourLetterWords})
}

// flw sends a four-letter word and returns its output; errors are text.
func (s *sc) flw(cmd string) string {
	out, err := realzk.FourLetterWord(s.addr, cmd, rawTimeout)
	if err != nil {
		return "error: " + err.Error()
	}
	return out
}

var (
	intRe   = regexp.MustCompile(`^-?\d+$`)
	floatRe = regexp.MustCompile(`^-?\d+\.\d+(E-?\d+)?$`)
	hexRe   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	latRe   = regexp.MustCompile(`^\d+/\d+(\.\d+)?/\d+$`)

	// mntrCoreKeys are the mntr keys of ZooKeeperServer.dumpMonitorValues
	// and the standalone server's own gauges.
	mntrCoreKeys = []string{
		"zk_version", "zk_server_state", "zk_avg_latency", "zk_max_latency", "zk_min_latency",
		"zk_packets_received", "zk_packets_sent", "zk_num_alive_connections", "zk_outstanding_requests",
		"zk_uptime", "zk_znode_count", "zk_watch_count", "zk_ephemerals_count",
		"zk_approximate_data_size", "zk_global_sessions", "zk_local_sessions",
		"zk_open_file_descriptor_count", "zk_max_file_descriptor_count", "zk_connection_drop_probability",
	}
)

// valueKind classifies a 4lw value.
func valueKind(v string) string {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "<empty>"
	case intRe.MatchString(v):
		return "<int>"
	case floatRe.MatchString(v):
		return "<float>"
	case hexRe.MatchString(v):
		return "<hex>"
	case latRe.MatchString(v):
		return "<min/avg/max>"
	}
	return "<text>"
}

// literalKeys keep their value in the shape.
var literalKeys = map[string]bool{
	"Mode": true, "zk_server_state": true,
}

// shapeLines turns "key<sep>value" lines into "key<sep><kind>".
func shapeLines(out, sep string, sortKeys bool) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		k, v, ok := strings.Cut(l, sep)
		switch {
		case !ok:
			lines = append(lines, l)
		case literalKeys[strings.TrimSpace(k)]:
			lines = append(lines, k+sep+v)
		default:
			lines = append(lines, k+sep+valueKind(v))
		}
	}
	if sortKeys {
		sort.Strings(lines)
	}
	return lines
}

func diffFourLetterWords(s *sc) {
	for _, cmd := range []string{"ruok", "isro", "crst", "srst", "gtmk"} {
		s.logf("%s -> %q", cmd, s.flw(cmd))
	}
	srvr := s.flw("srvr")
	for _, l := range shapeLines(srvr, ": ", false) {
		if strings.HasPrefix(l, "Zookeeper version: ") {
			l = "Zookeeper version: <version>"
		}
		s.logf("srvr | %s", l)
	}
	// mntr: only the keys ZooKeeperServer itself reports; the hundreds of
	// ServerMetrics keys (zk_avg_fsynctime, zk_p99_readlatency, ...) are
	// not compared (see DIFFERENCES.md).
	mntr := map[string]string{}
	for _, l := range shapeLines(s.flw("mntr"), "\t", true) {
		if k, v, ok := strings.Cut(l, "\t"); ok {
			mntr[k] = v
		}
	}
	for _, k := range mntrCoreKeys {
		v, ok := mntr[k]
		if !ok {
			v = "(missing)"
		}
		s.logf("mntr | %s\t%s", k, v)
	}
	for _, l := range shapeLines(s.flw("conf"), "=", true) {
		s.logf("conf | %s", l)
	}
	// envi: keys only; the values describe a JVM.
	for _, l := range strings.Split(strings.TrimRight(s.flw("envi"), "\n"), "\n") {
		k, _, _ := strings.Cut(l, "=")
		s.logf("envi | %s", k)
	}
	for _, l := range shapeLines(s.flw("dirs"), ": ", false) {
		s.logf("dirs | %s", l)
	}
	wchs := regexp.MustCompile(`\d+`).ReplaceAllString(s.flw("wchs"), "N")
	s.logf("wchs -> %q", wchs)
	// Unknown words are not 4lw commands: they are read as a frame length.
	for _, cmd := range []string{"abcd", "RUOK"} {
		s.logf("%s -> %q", cmd, s.flw(cmd))
	}
	// A 4lw after a valid handshake is read as a frame length instead.
	r := s.raw("R")
	r.sendAndWatch("srvr after handshake", []byte("srvr"))
}

// TestDiffFourLetterWhitelist compares servers whose whitelist is only
// ruok and srvr.
func TestDiffFourLetterWhitelist(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	dir := t.TempDir()
	real, err := realzk.Start(dir, realzk.Options{ExtraConfig: map[string]string{"4lw.commands.whitelist": "ruok, srvr"}})
	if err != nil {
		t.Fatalf("start Apache ZooKeeper: %v", err)
	}
	t.Cleanup(func() { real.Stop(); os.RemoveAll(dir) })
	got := startZkraftForDiff(t, "ruok", "srvr")
	sn := scenario{"whitelist", func(s *sc) {
		for _, cmd := range []string{"ruok", "envi", "mntr", "conf", "stat", "cons", "dump", "wchs", "isro", "stmk"} {
			s.logf("%s -> %q", cmd, s.flw(cmd))
		}
		out := s.flw("srvr")
		s.logf("srvr lines=%d mode=%v", strings.Count(out, "\n"), strings.Contains(out, "Mode: standalone"))
	}}
	compareScenario(t, sn, diffRun.Add(1), real.Addr(), got)
}
