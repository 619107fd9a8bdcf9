package auth

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"

	"github.com/stretchr/testify/require"
)

func av(oid asn1.ObjectIdentifier, v any) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

func rawName(t *testing.T, rdns ...[]pkix.AttributeTypeAndValue) []byte {
	t.Helper()
	var seq pkix.RDNSequence
	for _, r := range rdns {
		seq = append(seq, pkix.RelativeDistinguishedNameSET(r))
	}
	b, err := asn1.Marshal(seq)
	require.NoError(t, err)
	return b
}

type avs = []pkix.AttributeTypeAndValue

var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU     = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidEmail  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

// The expected names are what Java 17's X500Principal.getName() printed
// for certificates with these subjects.
func TestSubjectIDIsJavasRFC2253Name(t *testing.T) {
	for _, c := range []struct {
		subject []byte
		want    string
	}{
		{rawName(t, avs{av(oidC, "US")}, avs{av(oidO, "Example")}, avs{av(oidOU, "zk")}, avs{av(oidCN, "client")}), "CN=client,OU=zk,O=Example,C=US"},
		{rawName(t, avs{av(oidDC, "com")}, avs{av(oidDC, "example")}, avs{av(oidUID, "bob")}), "UID=bob,DC=example,DC=com"},
		{rawName(t, avs{av(oidCN, `a,b=c+d<e>f#g;h"i\j`)}), `CN=a\,b\=c\+d\<e\>f\#g\;h\"i\\j`},
		{rawName(t, avs{av(oidCN, " padded ")}), `CN=\ padded\ `},
		{rawName(t, avs{av(oidCN, "#lead")}), `CN=\#lead`},
		{rawName(t, avs{av(oidSerial, "1234"), av(oidEmail, "bob@example.com")}), "2.5.4.5=#130431323334+1.2.840.113549.1.9.1=#0c0f626f62406578616d706c652e636f6d"},
		{rawName(t, avs{av(oidCN, "Zoë ☃")}), "CN=Zoë ☃"},
		{rawName(t, avs{av(oidCN, "one"), av(oidOU, "two")}, avs{av(oidO, "three")}), "O=three,CN=one+OU=two"},
		{rawName(t), ""},
	} {
		got, err := formatName(c.subject)
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
	_, err := formatName([]byte{0x30, 0x03, 0x31})
	require.ErrorIs(t, err, errBadName)
}

// The verdicts are those of Java 17's new X500Principal(String).
func TestValidDNAgreesWithJava(t *testing.T) {
	valid := []string{"CN=a,O=b", "", "CN=a+OU=b,O=c", "CN=", `CN="quoted, x"`, "1.2.3=#0403616263",
		"CN=a;O=b", "OID.2.5.4.3=x", "cn=a", "CN=a, O=b", "CN=a=b", `CN=a\,b`, `CN=a\2cb`, "OID.2.5=x",
		"2.5.4.3=x", `CN="a" `, "CN = a", "EmailAddress=x@y", "CN=#0400"}
	invalid := []string{"foo", "CN=a,,O=b", "=a", `CN=a\`, "CN=#zz", "X Y=z", "FOO=bar", `CN=a"b`,
		`CN=a\zb`, "2=x", `CN="a"b`, "CN=a+", ",CN=a", "CN=a,", "CN=#04", "CN=#040000", " "}
	for _, s := range valid {
		require.True(t, ValidDN(s), "%q", s)
	}
	for _, s := range invalid {
		require.False(t, ValidDN(s), "%q", s)
	}
}

// The verdicts are those of ZooKeeper's KerberosName constructor.
func TestSASLSchemeIds(t *testing.T) {
	s := SASLScheme{}
	for _, id := range []string{"jaasuser", "zookeeper/host@EXAMPLE.COM", "user@REALM", "a/b/c", "@", "/@"} {
		require.True(t, s.Valid(id), id)
	}
	for _, id := range []string{"a@b@c", "a/b/c@R", "a/b@c/d"} {
		require.False(t, s.Valid(id), id)
	}
	require.True(t, s.Matches("bob", "bob"))
	require.True(t, s.Matches("super", "bob"), "the SASL user super matches every sasl ACL")
	require.False(t, s.Matches("alice", "bob"))
	require.True(t, SASLScheme{LetAnyUserDoX: "anyone"}.Matches("alice", "anyone"))
	require.True(t, X509Scheme{}.Matches("CN=a", "CN=a"))
	require.False(t, X509Scheme{}.Matches("CN=a", "cn=a"), "x509 ids compare exactly")
}
