package digestmd5

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRFC2831Example checks the digest against the worked example of RFC
// 2831 section 4, which uses md5-sess and qop=auth.
func TestRFC2831Example(t *testing.T) {
	in := &Input{
		Username: "chris", Realm: "elwood.innosoft.com", Password: "secret",
		Nonce: []byte("OA6MG9tEQGm2hh"), Cnonce: []byte("OA6MHXh6VqTrRk"),
		DigestURI: "imap/elwood.innosoft.com", Qop: "auth",
	}
	require.Equal(t, "d388dad90d4bbd760a152321f2143af7", string(ResponseValue("AUTHENTICATE", in)))
	require.Equal(t, "ea40f60335c427b5527b84dbabcdfffd", string(ResponseValue("", in)))
}
