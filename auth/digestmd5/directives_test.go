package digestmd5

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var testKeys = []string{"a", "b", "realm"}

func TestParseDirectives(t *testing.T) {
	for in, want := range map[string][3]string{
		``:                        {"-", "-", "-"},
		`a=1`:                     {"1", "-", "-"},
		`a="1",b=2`:               {"1", "2", "-"},
		`A = "x y" , B=2`:         {"x y", "2", "-"},
		`,,a=1,, ,b=2,`:           {"1", "2", "-"},
		"\r\n\ta=1\r\n":           {"1", "-", "-"},
		`a="q\"uo\\te"`:           {`q"uo\te`, "-", "-"},
		`a="\x\y"`:                {"xy", "-", "-"},
		`a=x"y`:                   {`x"y`, "-", "-"},
		`a=""`:                    {"", "-", "-"},
		`a="",b=""`:               {"", "", "-"},
		`x=1,x=2,a=3`:             {"3", "-", "-"}, // unknown names repeat freely
		`a=1,realm`:               {"1", "-", ""},  // a trailing bare name is an empty value
		`a=1 b=2`:                 {"1", "2", "-"},
		`a="1" b=2`:               {"1", "2", "-"},
		`a=1,REALM="r",B="k=v,w"`: {"1", "k=v,w", "r"},
	} {
		v, err := ParseDirectives([]byte(in), testKeys)
		require.NoError(t, err, in)
		for i, w := range want {
			if w == "-" {
				require.Nil(t, v[i], "%q: %s", in, testKeys[i])
				continue
			}
			require.NotNil(t, v[i], "%q: %s", in, testKeys[i])
			require.Equal(t, w, string(v[i]), "%q: %s", in, testKeys[i])
		}
	}
}

func TestParseDirectivesErrors(t *testing.T) {
	for _, in := range []string{
		`a=1,a=2`,    // repeated known directive
		`a=1,A="2"`,  // names ignore case
		`a=`,         // valueless
		`a= `,        // valueless after white space
		`a=,b=`,      // the last one is valueless
		`=1`,         // empty name
		`a,b=1`,      // a name holding a comma
		`a b=1`,      // white space inside a name
		`a `,         // '=' expected
		`a="1`,       // unterminated
		`a="1\"`,     // the escaped quote does not close
		`a="1\`,      // trailing escape
		`a="1"b=2`,   // no separator after the closing quote
		`a="1""`,     // likewise
		`b=1,a="x"y`, // likewise, later on
	} {
		_, err := ParseDirectives([]byte(in), testKeys)
		require.ErrorIs(t, err, ErrDirective, in)
	}
}

func TestQuoteValueRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "ctl\x01\x7f", "lws \t\r\n", "ümlaut"} {
		in := append([]byte(`realm="`), QuoteValue(s)...)
		v, err := ParseDirectives(append(in, '"'), testKeys)
		require.NoError(t, err, s)
		require.Equal(t, s, string(v[2]))
	}
	require.Equal(t, `a\"b\\c\`+"\x01\t", string(QuoteValue("a\"b\\c\x01\t")))
}

func FuzzParseDirectives(f *testing.F) {
	for _, s := range []string{`a=1`, `a="x\"y",b=2`, `,, a = "1" ,b`, `a="`, `=`, "a=\xff\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := ParseDirectives(in, testKeys)
		if err != nil {
			return
		}
		// Whatever parses re-encodes, quoted, to the same values.
		var parts []string
		for i, val := range v {
			if val != nil {
				parts = append(parts, testKeys[i]+`="`+string(QuoteValue(string(val)))+`"`)
			}
		}
		again, err := ParseDirectives([]byte(strings.Join(parts, ",")), testKeys)
		require.NoError(t, err)
		for i := range v {
			require.True(t, bytes.Equal(v[i], again[i]) && (v[i] == nil) == (again[i] == nil))
		}
	})
}
