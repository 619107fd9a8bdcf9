package testports

import (
	"fmt"
	"net"
	"sync"
)

// TB is the part of testing.TB that Free uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Ports for servers that must know their ports before they start (an
// ensemble's peer addresses, a server restarted on its old port) come from
// 20000-31999: below the kernel's ephemeral range (32768 and up), so no
// outgoing connection is ever given one, and a port that is free now stays
// free until its server binds it, unless another test process picks it too.
// To rule that out, each process claims one block of the range by keeping
// the block's first port bound, and hands out the others in turn.
const (
	portRangeStart = 20000
	portBlocks     = 12
	portBlockSize  = 1000
)

var ports struct {
	sync.Mutex
	claim net.Listener // holds the block's first port while the process lives
	block int
	next  int // offset in the block of the next port to try
}

// Free returns a loopback port that is free now and that no other call
// in any process using this package returns while this one may be in use.
// A process outside the tests can still take it; tests that cannot rule
// that out retry with a new port when the bind fails.
func Free(t TB) int {
	t.Helper()
	port, err := Pick()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return port
}

// Pick is Free for code outside tests (a benchmark starting servers).
func Pick() (int, error) {
	ports.Lock()
	defer ports.Unlock()
	if ports.claim == nil && !claimPortBlock() {
		return 0, fmt.Errorf("no free block of ports in %d-%d", portRangeStart, portRangeStart+portBlocks*portBlockSize-1)
	}
	for try := 1; try < portBlockSize; try++ {
		ports.next = ports.next%(portBlockSize-1) + 1 // 1..999: 0 is the claim
		port := portRangeStart + ports.block*portBlockSize + ports.next
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			ln.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port in block %d", ports.block)
}

// claimPortBlock binds the first port of the first block no other process
// holds. The listener stays open until the process exits.
func claimPortBlock() bool {
	for b := 0; b < portBlocks; b++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", portRangeStart+b*portBlockSize))
		if err == nil {
			ports.claim, ports.block = ln, b
			return true
		}
	}
	return false
}
