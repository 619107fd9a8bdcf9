package server

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// readReply reads one reply frame and decodes its header.
func readReply(t *testing.T, nc net.Conn) wire.ReplyHeader {
	t.Helper()
	b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
	require.NoError(t, err)
	d := wire.NewDecoder(b, wire.DefaultMaxBuffer)
	var h wire.ReplyHeader
	h.Decode(d)
	require.NoError(t, d.Err())
	return h
}

// With enforce.auth on, a request before the connection holds an id of
// an enforced scheme is answered SESSIONCLOSEDREQUIRESASLAUTH (zxid 0) and
// the connection closes; an auth request first lets later ones through.
func TestEnforceAuthRefusesUnauthenticatedRequests(t *testing.T) {
	s := startTestServer(t, func(c *Config) {
		c.Security.EnforceAuth, c.Security.EnforceAuthSchemes = true, []string{"digest"}
	})
	get := &wire.PathWatchRequest{Path: "/"}

	nc := rawDial(t, s)
	handshake(t, nc)
	_, err := nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: 5, Type: wire.OpGetData}, get))
	require.NoError(t, err)
	h := readReply(t, nc)
	require.Equal(t, wire.ReplyHeader{Xid: 5, Zxid: 0, Err: wire.CodeSessionClosedRequireSASL}, h)
	requireClosed(t, nc)

	nc = rawDial(t, s)
	handshake(t, nc)
	_, err = nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: wire.XidAuth, Type: wire.OpAuth},
		&wire.AuthPacket{Scheme: "digest", Auth: []byte("u:p")}))
	require.NoError(t, err)
	require.Equal(t, wire.CodeOK, readReply(t, nc).Err)
	_, err = nc.Write(wire.AppendFrame(nil, &wire.RequestHeader{Xid: 6, Type: wire.OpGetData}, get))
	require.NoError(t, err)
	h = readReply(t, nc)
	require.Equal(t, int32(6), h.Xid)
	require.Equal(t, wire.CodeOK, h.Err)
}
