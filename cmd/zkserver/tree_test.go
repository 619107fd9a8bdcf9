package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
)

func TestExportTreeThenImportTree(t *testing.T) {
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) { c.SuperDigest = realzk.SuperDigest }))
	conn, _ := s.Connect(t)
	_, err := conn.Create("/app", []byte{0, 0xff}, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = conn.Create("/app/locked", []byte("x"), 0, zk.DigestACL(zk.PermRead, "u", "p"))
	require.NoError(t, err)

	var out, errOut bytes.Buffer
	err = runExportTree([]string{"-server", s.Addr(), "/app"}, &out, &errOut)
	require.ErrorContains(t, err, "as the super user", "a node the client may not read stops the export")
	out.Reset()
	require.NoError(t, runExportTree([]string{"-server", s.Addr(), "-auth", "digest:super:test", "/app"}, &out, &errOut))
	require.Contains(t, errOut.String(), "exported 2 nodes")

	args := []string{"-server", s.Addr(), "-auth", "digest:super:test", "-to", "/copy"}
	errOut.Reset()
	require.NoError(t, runImportTree(args, bytes.NewReader(out.Bytes()), &errOut))
	require.Contains(t, errOut.String(), "created 2 nodes")
	data, _, err := conn.Get("/copy")
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0xff}, data)

	require.NotContains(t, errOut.String(), "\r", "no progress lines but on a terminal")

	errOut.Reset()
	require.NoError(t, runImportTree(args, bytes.NewReader(out.Bytes()), &errOut), "a rerun resumes")
	require.Contains(t, errOut.String(), "created 0 nodes, updated 0, unchanged 2")
	_, err = conn.Set("/copy", []byte("changed"), -1)
	require.NoError(t, err)
	err = runImportTree(args, bytes.NewReader(out.Bytes()), &errOut)
	require.ErrorContains(t, err, "/copy, with other data (7 bytes, not 2) than the export's; refusing to change it")
	errOut.Reset()
	require.NoError(t, runImportTree(append(args, "-overwrite"), bytes.NewReader(out.Bytes()), &errOut))
	require.Contains(t, errOut.String(), "updated 1, unchanged 1")

	err = runExportTree([]string{"/app"}, &out, &errOut)
	require.True(t, strings.HasPrefix(err.Error(), "usage:"), err)
}
