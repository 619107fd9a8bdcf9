package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseHostCPU(t *testing.T) {
	stat := []byte("cpu  100 5 50 800 10 1 4 30 7 0\ncpu0 50 2 25 400 5 0 2 15 3 0\n")
	h, err := parseHostCPU(stat)
	require.NoError(t, err)
	require.Equal(t, hostCPU{steal: 30, total: 1000}, h, "guest time is already in user and nice")

	_, err = parseHostCPU([]byte("intr 1 2 3\n"))
	require.Error(t, err)
	_, err = parseHostCPU([]byte("cpu 1 2 x 4 5 6 7 8\n"))
	require.Error(t, err)
}

func TestStealPercent(t *testing.T) {
	require.InDelta(t, 25.0, stealPercent(hostCPU{steal: 10, total: 1000}, hostCPU{steal: 60, total: 1200}), 1e-9)
	require.Zero(t, stealPercent(hostCPU{total: 5}, hostCPU{total: 5}), "no time elapsed")
}
