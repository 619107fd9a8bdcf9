package auth

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"strings"
	"unicode/utf16"
)

// This file writes a certificate's subject the way ZooKeeper names an x509
// client (X509AuthenticationProvider.getClientId, which is Java's
// X500Principal.getName(), RFC 2253 form): the last RDN first, known
// attribute types by keyword and others as a dotted OID with the value's
// DER in hex. Go's pkix.Name.String differs in its keywords (SERIALNUMBER
// and POSTALCODE against DC and UID), so an ACL written for ZooKeeper
// would not match it.

// rfc2253Keywords are the attribute types Java's RFC 2253 form names.
var rfc2253Keywords = map[string]string{
	"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST",
	"2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.9": "STREET",
	"0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

// attribute is one AttributeTypeAndValue, its value kept as DER.
type attribute struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// errBadName reports a subject that is not a DER Name.
var errBadName = errors.New("auth: certificate subject is not a valid X.500 name")

// SubjectID is the x509 id of a client presenting cert.
func SubjectID(cert *x509.Certificate) (string, error) {
	return formatName(cert.RawSubject)
}

// formatName writes a DER-encoded Name in Java's RFC 2253 form.
func formatName(der []byte) (string, error) {
	var rdns []asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &rdns); err != nil || len(rest) > 0 {
		return "", errBadName
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		var set []attribute
		if rest, err := asn1.UnmarshalWithParams(rdns[i].FullBytes, &set, "set"); err != nil || len(rest) > 0 || len(set) == 0 {
			return "", errBadName
		}
		avas := make([]string, len(set))
		for j, a := range set {
			avas[j] = formatAttribute(a)
		}
		parts = append(parts, strings.Join(avas, "+"))
	}
	return strings.Join(parts, ","), nil
}

// formatAttribute writes one type=value pair.
func formatAttribute(a attribute) string {
	oid := a.Type.String()
	keyword, known := rfc2253Keywords[oid]
	if known {
		if s, ok := directoryString(a.Value); ok {
			return keyword + "=" + escapeValue(s)
		}
		return keyword + "=#" + hex.EncodeToString(a.Value.FullBytes)
	}
	return oid + "=#" + hex.EncodeToString(a.Value.FullBytes)
}

// directoryString decodes the string types Java writes as text.
func directoryString(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, 27 /* GeneralString */ :
		return string(v.Bytes), true
	case asn1.TagT61String:
		return latin1(v.Bytes), true
	case asn1.TagBMPString:
		return bmp(v.Bytes)
	}
	return "", false
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func bmp(b []byte) (string, bool) {
	if len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(u)), true
}

// rfc2253Escaped are the characters Java escapes with a backslash
// wherever they occur (more than RFC 2253 requires: "=" and "#" too).
const rfc2253Escaped = `,=+<>#;"\`

// escapeValue escapes a string value as Java's AVA.toRFC2253String does:
// the special characters above, NUL as \00, and leading and trailing
// spaces and carriage returns.
func escapeValue(s string) string {
	runes := []rune(s)
	lead, trail := 0, len(runes)-1
	for lead < len(runes) && (runes[lead] == ' ' || runes[lead] == '\r') {
		lead++
	}
	for trail >= lead && (runes[trail] == ' ' || runes[trail] == '\r') {
		trail--
	}
	var b strings.Builder
	for i, c := range runes {
		switch {
		case c == 0:
			b.WriteString(`\00`)
			continue
		case strings.ContainsRune(rfc2253Escaped, c), i < lead, i > trail:
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
