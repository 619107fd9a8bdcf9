package sasl

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzGSSAPIStep feeds hostile tokens to each step of the GSSAPI server:
// stage 0 as the initial context token, 1 as the security-layer answer
// after a valid non-mutual AP-REQ, 2 as the ack and then the answer after
// a valid mutual one. Nothing may panic, every error must be
// ErrAuthFailed, and done needs an authorization id.
func FuzzGSSAPIStep(f *testing.F) {
	kt := testServiceKeytab(f, "service-secret")
	long := initiator{end: time.Now().Add(24 * time.Hour)}
	plain := long.build(f, kt)
	long.apMutual = true
	mutual := long.build(f, kt)

	f.Add(byte(0), plain.token)
	f.Add(byte(0), mutual.token)
	f.Add(byte(0), []byte{})
	f.Add(byte(0), []byte{0x60, 0x81, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02})
	f.Add(byte(0), frameGSSToken(tokAPReq, []byte{0x6e, 0x82, 0xff, 0xff, 0x30}))
	f.Add(byte(1), plain.wrap(f, []byte{1, 0, 0, 0}))
	f.Add(byte(1), plain.wrap(f, []byte{2, 0, 0, 0}))
	f.Add(byte(1), []byte{5, 4, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(byte(2), []byte{})
	f.Add(byte(2), mutual.wrap(f, []byte{1, 0, 0, 0}))

	gssCatchPanics = false
	f.Cleanup(func() { gssCatchPanics = true })
	f.Fuzz(func(t *testing.T, stage byte, data []byte) {
		g := &GSSAPI{Keytab: kt, Principal: testService, MaxClockSkew: 24 * time.Hour}
		s := g.NewServer()
		steps := [][]byte{data}
		switch stage % 3 {
		case 1:
			steps = [][]byte{plain.token, data}
		case 2:
			steps = [][]byte{mutual.token, data, data}
		}
		for i, tok := range steps {
			_, done, err := s.Step(tok)
			if err != nil {
				if !errors.Is(err, ErrAuthFailed) {
					t.Fatalf("step %d: error %v is not ErrAuthFailed", i, err)
				}
				require.Empty(t, s.AuthorizationID())
				return
			}
			if i == 0 && done {
				t.Fatal("done after the AP-REQ")
			}
			if done {
				require.Equal(t, "zkclient@"+testRealm, s.AuthorizationID())
				_, _, err := s.Step(data)
				require.ErrorIs(t, err, ErrAuthFailed)
				return
			}
		}
	})
}
