package main

import (
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testpki"
)

func TestTLSFlags(t *testing.T) {
	d, err := tlsFlags{}.dialer()
	require.NoError(t, err)
	require.Nil(t, d, "no -tls-ca: plaintext")

	_, err = tlsFlags{cert: "c.pem"}.dialer()
	require.ErrorContains(t, err, "need -tls-ca")
	_, err = tlsFlags{ca: filepath.Join(t.TempDir(), "missing.pem")}.dialer()
	require.ErrorContains(t, err, "-tls-ca")

	pki := testpki.New(t, "bench CA")
	_, ca := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkbench"}))
	d, err = tlsFlags{ca: ca}.dialer()
	require.NoError(t, err)
	require.NotNil(t, d)

	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	_, err = tlsFlags{ca: notPEM}.dialer()
	require.ErrorContains(t, err, "no PEM certificate")
}
