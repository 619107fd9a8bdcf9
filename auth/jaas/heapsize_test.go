package jaas

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseHeapSize checks the sizes java accepts and refuses (java 17 here:
// -Xmx1m "Too small maximum heap", -Xmx0 and -Xmx12q "Invalid maximum heap
// size", -Xmx4096k starts).
func TestParseHeapSize(t *testing.T) {
	for in, want := range map[string]int64{
		"-Xmx3m":                  3 << 20,
		"-Xmx4096k":               4 << 20,
		"-Xmx1g":                  1 << 30,
		"-Xmx1G":                  1 << 30,
		"-Xmx2T":                  2 << 40,
		"-Xmx3145728":             3 << 20,
		"-XX:MaxHeapSize=6g":      6 << 30,
		"-Xmx8388607t":            8388607 << 40,
		"-XX:MaxHeapSize=2097152": 2 << 20,
	} {
		got, err := ParseHeapSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		"-Xmx":                 "invalid maximum heap size: -X",
		"-Xmxg":                "invalid maximum heap size: -X",
		"-Xmx0":                "invalid maximum heap size: -X",
		"-Xmx12q":              "invalid maximum heap size: -X",
		"-Xmx+5g":              "invalid maximum heap size: -X",
		"-Xmx-5g":              "invalid maximum heap size: -X",
		"-Xmx1.5g":             "invalid maximum heap size: -X",
		"-Xmx99999999999t":     "invalid maximum heap size: -X",
		"-Xmx8388608t":         "invalid maximum heap size: -X",
		"-Xmx1m":               "too small",
		"-Xmx1024":             "too small",
		"-XX:MaxHeapSize=1k":   "too small",
		"-Xss1m":               "is not -Xmx",
		"-XX:MaxHeapSize":      "is not -Xmx",
		"-XX:MaxHeapFreeRatio": "is not -Xmx",
	} {
		_, err := ParseHeapSize(in)
		require.ErrorIs(t, err, ErrHeapSize, in)
		require.ErrorContains(t, err, msg, in)
	}
}

// TestJVMFlagsMaxHeap checks that the last maximum heap flag wins, in
// either spelling, and that other -X flags are not taken for it.
func TestJVMFlagsMaxHeap(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"-Xms1g -Xss1m -XX:MaxHeapFreeRatio=70": "",
		"-Xmx1g -Dx=1":                          "-Xmx1g",
		"-Xmx1g -XX:MaxHeapSize=2g":             "-XX:MaxHeapSize=2g",
		"-XX:MaxHeapSize=2g -Xmx512m":           "-Xmx512m",
		"-Xmx12q":                               "-Xmx12q", // refused by ParseHeapSize, not here
	} {
		f, err := ParseJVMFlags(in)
		require.NoError(t, err, in)
		require.Equal(t, want, f.MaxHeap, in)
	}
}
