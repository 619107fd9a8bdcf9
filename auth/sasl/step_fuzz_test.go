package sasl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzStep feeds arbitrary digest-responses to a server: it never panics,
// fails with ErrAuthFailed, and refuses every later step.
func FuzzStep(f *testing.F) {
	nonce := strings.Repeat("A", 40)
	good := `username="bob",realm="zk-sasl-md5",nonce="` + nonce + `",cnonce="c",nc=00000001,qop=auth,digest-uri="zookeeper/zk-sasl-md5",response=00000000000000000000000000000000`
	for _, s := range []string{good, "", `username=`, strings.Repeat(`a="\"",`, 600), good + `,authzid="x"`} {
		f.Add([]byte(s))
	}
	d := &DigestMD5{Users: map[string]string{"bob": "bobsecret"}, Rand: zeros{}}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := d.NewServer()
		_, _, err := s.Step(nil)
		require.NoError(t, err)
		_, done, err := s.Step(in)
		require.ErrorIs(t, err, ErrAuthFailed)
		require.False(t, done)
		require.Empty(t, s.AuthorizationID())
		_, _, err = s.Step(in)
		require.ErrorIs(t, err, ErrAuthFailed)
	})
}
