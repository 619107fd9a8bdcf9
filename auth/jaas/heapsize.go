package jaas

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The flags that set a JVM's maximum heap; the last one given wins.
const (
	xmxFlag         = "-Xmx"
	maxHeapSizeFlag = "-XX:MaxHeapSize="
)

// minHeap is the smallest maximum heap java starts with: below it (-Xmx1m)
// it stops with "Too small maximum heap".
const minHeap = 2 << 20

// ErrHeapSize is wrapped by ParseHeapSize's errors.
var ErrHeapSize = errors.New("jaas: invalid maximum heap size")

// maxHeapFlag returns the size a maximum heap flag gives, if w is one.
func maxHeapFlag(w string) (string, bool) {
	if size, ok := strings.CutPrefix(w, xmxFlag); ok {
		return size, true
	}
	return strings.CutPrefix(w, maxHeapSizeFlag)
}

// ParseHeapSize returns the bytes of a maximum heap flag (JVMFlags.MaxHeap)
// as java reads them: decimal digits with an optional k, m, g or t (either
// case, powers of 1024), bytes without one. What java refuses to start with
// is an error here too: no digits, a zero, another suffix, a size past 2^63,
// or one under 2 MiB.
func ParseHeapSize(flag string) (int64, error) {
	size, ok := maxHeapFlag(flag)
	if !ok {
		return 0, fmt.Errorf("%w: %q is not -Xmx<size> or -XX:MaxHeapSize=<size>", ErrHeapSize, flag)
	}
	digits, shift := size, uint(0)
	if n := len(size); n > 0 {
		if s := strings.IndexByte("kmgt", lower(size[n-1])); s >= 0 {
			digits, shift = size[:n-1], 10*uint(s+1)
		}
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || v == 0 || v > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%w: %s", ErrHeapSize, flag)
	}
	if v <<= shift; v < minHeap {
		return 0, fmt.Errorf("%w: %s: too small (java starts with 2m or more)", ErrHeapSize, flag)
	}
	return int64(v), nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
