package server

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/wire"
)

// readReplyXids reads n reply frames from nc and returns their xids.
func readReplyXids(t *testing.T, nc net.Conn, n int) []int32 {
	t.Helper()
	var xids []int32
	for range n {
		b, err := wire.ReadFrame(nc, wire.DefaultMaxBuffer, nil)
		require.NoError(t, err)
		var hdr wire.ReplyHeader
		d := wire.NewDecoder(b, 0)
		hdr.Decode(d)
		require.NoError(t, d.Err())
		require.Equal(t, wire.CodeOK, hdr.Err, "reply to xid %d", hdr.Xid)
		xids = append(xids, hdr.Xid)
	}
	return xids
}

// appendExists appends an exists("/") request with xid to burst.
func appendExists(burst []byte, xid int32) []byte {
	return wire.AppendFrame(burst, &wire.RequestHeader{Xid: xid, Type: wire.OpExists}, &wire.ExistsRequest{Path: "/"})
}

// TestPipelinedRepliesKeepOrder sends reads and a write in one burst: the
// reads before the write are answered by the reader and held until it
// finds no more input, the write and the reads after it go through the
// writer, and every reply leaves in request order.
func TestPipelinedRepliesKeepOrder(t *testing.T) {
	s := startTestServer(t, nil)
	nc := rawDial(t, s)
	handshake(t, nc)
	var burst []byte
	for xid := int32(1); xid <= 6; xid++ {
		if xid == 4 {
			burst = wire.AppendFrame(burst, &wire.RequestHeader{Xid: xid, Type: wire.OpSetData},
				&wire.SetDataRequest{Path: "/", Data: []byte("x"), Version: -1})
			continue
		}
		burst = appendExists(burst, xid)
	}
	_, err := nc.Write(burst)
	require.NoError(t, err)
	require.Equal(t, []int32{1, 2, 3, 4, 5, 6}, readReplyXids(t, nc, 6))
}

// TestHalfClosedClientStillGetsReplies: a client that sends its requests
// and shuts its side for writing still reads every reply; the reader
// writes out what it answered before it stops on the end of input.
func TestHalfClosedClientStillGetsReplies(t *testing.T) {
	s := startTestServer(t, nil)
	nc := rawDial(t, s)
	handshake(t, nc)
	var burst []byte
	for xid := int32(1); xid <= 3; xid++ {
		burst = appendExists(burst, xid)
	}
	_, err := nc.Write(burst)
	require.NoError(t, err)
	require.NoError(t, nc.(*net.TCPConn).CloseWrite())
	require.Equal(t, []int32{1, 2, 3}, readReplyXids(t, nc, 3))
}
