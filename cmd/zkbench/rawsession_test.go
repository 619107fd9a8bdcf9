package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSessionsRawClient opens sessions with the bare handshake on a
// zkserver process (the in-process target has no CPU of its own to read),
// checks each got its own session, and that closing them ends them on the
// server: cons lists no client connection afterwards.
func TestSessionsRawClient(t *testing.T) {
	addr, _ := startZkserverProcess(t)
	mem := findMemory([]string{addr})
	o := scaleOptions(t, "sessions")
	o.sessionClient = sessionClientRaw
	o.sessionTimeout = 6 * time.Second
	res, err := runScaleOnce(context.Background(), o, []string{addr}, mem)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := figureOf(res, "sessions"); !ok || int(f.Value) != o.n {
		t.Fatalf("sessions %+v, want %d", f, o.n)
	}
	for _, key := range []string{"server_cpu_per_session_ms", "client_cpu_per_session_ms"} {
		if f, ok := figureOf(res, key); !ok || !f.OK {
			t.Errorf("%s missing: %+v", key, f)
		}
	}
	// The server writes closeSession's reply before it drops the
	// connection, so cons may list a closed one for a moment: wait until
	// it lists none.
	deadline := time.Now().Add(20 * time.Second)
	for {
		cons := consOf(t, addr)
		if strings.Contains(cons, "not executed") {
			t.Fatalf("cons answered %q", cons)
		}
		n := strings.Count(cons, "sid=")
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cons after closing still lists %d sessions:\n%s", n, cons)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRawSessionPingAndClose keeps one raw session alive past its timeout
// with the keeper's pings, then closes it.
func TestRawSessionPingAndClose(t *testing.T) {
	addr, _ := startZkserverProcess(t)
	timeout := 300 * time.Millisecond // zkserver raises it to 2 ticks (minSessionTimeout)
	s, err := dialRaw(context.Background(), addr, timeout)
	if err != nil {
		t.Fatal(err)
	}
	keep := keepRaw([]*rawSession{s}, timeout)
	// Wait until the keeper has pinged a few times: the server counts the
	// session's packets received (cons: recved=N).
	deadline := time.Now().Add(20 * time.Second)
	for received(consOf(t, addr)) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("no pings counted:\n%s", consOf(t, addr))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := keep.finish(); err != nil {
		t.Fatal(err)
	}
	if err := s.close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}

func consOf(t *testing.T, addr string) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := fourLetter(context.Background(), addr, "cons", &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var recvedRE = regexp.MustCompile(`recved=(\d+)`)

// received is the most packets any connection in a cons reply received.
func received(cons string) int {
	most := 0
	for _, m := range recvedRE.FindAllStringSubmatch(cons, -1) {
		n, _ := strconv.Atoi(m[1])
		most = max(most, n)
	}
	return most
}
