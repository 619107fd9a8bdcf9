package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVerifyArguments(t *testing.T) {
	var out bytes.Buffer
	require.ErrorIs(t, runVerify(nil, &out), errVerifyUsage)
	require.ErrorIs(t, runVerify([]string{"a", "b", "c"}, &out), errVerifyUsage)
	inMemory := writeCfg(t, "tickTime=2000\nclientPort=2181\n")
	require.ErrorContains(t, runVerify([]string{inMemory}, &out), "has no dataDir")
	empty := t.TempDir()
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=2181\ndataDir=%s\n", empty))
	require.ErrorContains(t, runVerify([]string{cfg}, &out), "no zkraft log or snapshots in "+empty)
	require.ErrorContains(t, runVerify([]string{empty + "/missing"}, &out), "is not a directory")
}
