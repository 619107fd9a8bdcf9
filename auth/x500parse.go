package auth

import (
	"encoding/asn1"
	"encoding/hex"
	"strings"
)

// This file decides which strings are distinguished names, as Java's
// X500Principal(String) does for an x509 ACL id: RDNs separated by "," or
// ";", attribute pairs within one by "+", each "type=value" where type is
// a known keyword (any case) or an OID, and value is a "#"-prefixed DER in
// hex, a quoted string or a string with backslash escapes. The empty
// string is the empty name; a blank one is not a name.

// parseKeywords are the attribute keywords Java accepts when it parses.
var parseKeywords = map[string]bool{
	"CN": true, "C": true, "L": true, "S": true, "ST": true, "O": true, "OU": true,
	"T": true, "IP": true, "STREET": true, "DC": true, "DNQUALIFIER": true, "DNQ": true,
	"SURNAME": true, "GIVENNAME": true, "INITIALS": true, "GENERATION": true,
	"EMAIL": true, "EMAILADDRESS": true, "UID": true, "SERIALNUMBER": true,
}

// ValidDN reports whether s parses as a distinguished name.
func ValidDN(s string) bool {
	if s == "" {
		return true
	}
	for _, ava := range splitUnescaped(s) {
		if !validAVA(ava) {
			return false
		}
	}
	return true
}

// splitUnescaped splits s at the separators of RDNs and of attribute
// pairs (",", ";", "+") outside quotes and escapes. A trailing backslash
// is kept, for validAVA to refuse.
func splitUnescaped(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == ';' || c == '+'):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// validAVA checks one "type=value".
func validAVA(ava string) bool {
	typ, value, ok := strings.Cut(ava, "=")
	if !ok || !validType(strings.TrimSpace(typ)) {
		return false
	}
	value = strings.TrimLeft(value, " ")
	switch {
	case strings.HasPrefix(value, "#"):
		return validHexValue(strings.TrimRight(value[1:], " "))
	case strings.HasPrefix(value, `"`):
		return validQuoted(value)
	}
	return validEscaped(value)
}

// validType accepts a keyword, "OID.1.2.3" or "1.2.3".
func validType(t string) bool {
	if parseKeywords[strings.ToUpper(t)] {
		return true
	}
	if len(t) > 4 && strings.EqualFold(t[:4], "OID.") {
		t = t[4:]
	}
	parts := strings.Split(t, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// validHexValue accepts the hex of exactly one DER value.
func validHexValue(h string) bool {
	der, err := hex.DecodeString(h)
	if err != nil || len(der) == 0 {
		return false
	}
	var v asn1.RawValue
	rest, err := asn1.Unmarshal(der, &v)
	return err == nil && len(rest) == 0
}

// validQuoted accepts "..." with backslash escapes, then only spaces.
func validQuoted(v string) bool {
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return strings.TrimSpace(v[i+1:]) == ""
		}
	}
	return false
}

// validEscaped accepts a string whose backslashes each escape a special
// character or a pair of hex digits, and whose special characters are
// escaped.
func validEscaped(v string) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			if i+1 >= len(v) {
				return false
			}
			switch {
			case isHex(v[i+1]) && i+2 < len(v) && isHex(v[i+2]):
				i += 2
			case strings.IndexByte(escapable, v[i+1]) >= 0:
				i++
			default:
				return false
			}
		case c == '"':
			return false
		}
	}
	return true
}

// escapable are the characters a backslash may escape in a value.
const escapable = ",=+<>#;\"\\ "

func isHex(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
