package jaas

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string, lookup func(string) (string, bool)) *Config {
	t.Helper()
	c, err := Parse(strings.NewReader(src), lookup)
	require.NoError(t, err)
	return c
}

func props(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestZooKeeperServerFile(t *testing.T) {
	c, err := ParseFile("testdata/zookeeper-server.conf", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"Server", "QuorumServer", "QuorumLearner", "ServerKerberos"}, c.Sections())
	users, err := c.DigestUsers("Server")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"super": "adminsecret", "bob": "bobsecret"}, users)

	entries, ok := c.Section("ServerKerberos")
	require.True(t, ok)
	require.Equal(t, []Entry{{
		Module: Krb5LoginModule,
		Flag:   "required",
		Options: map[string]string{
			"useKeyTab": "true", "keyTab": "/path/to/zookeeper.keytab", "storeKey": "true",
			"useTicketCache": "false", "principal": "zookeeper/yourzkhostname@EXAMPLE.COM",
		},
	}}, entries)

	learner, ok := c.Section("QuorumLearner")
	require.True(t, ok)
	require.Equal(t, DigestLoginModule, learner[0].Module)
	require.Equal(t, map[string]string{"username": "test", "password": "test"}, learner[0].Options)
	users, err = c.DigestUsers("QuorumLearner")
	require.NoError(t, err)
	require.Empty(t, users)

	_, err = c.DigestUsers("Client")
	require.ErrorIs(t, err, ErrNoSection)
	require.ErrorContains(t, err, `"Client"`)
	_, ok = c.Section("server")
	require.False(t, ok, "section names are case-sensitive")
}

func TestKafkaFile(t *testing.T) {
	c, err := ParseFile("testdata/kafka.conf", props(map[string]string{"kafka.home": "/opt/kafka"}))
	require.NoError(t, err)
	server, ok := c.Section("KafkaServer")
	require.True(t, ok)
	require.Len(t, server, 2)
	require.Equal(t, "sufficient", server[1].Flag)
	require.Empty(t, server[1].Options)
	users, err := c.DigestUsers("KafkaServer")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"admin": "admin-secret", "alice": "alice-secret"}, users)
	client, _ := c.Section("KafkaClient")
	require.Equal(t, "/opt/kafka/config/kafka_client.keytab", client[0].Options["keyTab"])

	_, err = ParseFile("testdata/kafka.conf", props(nil))
	require.ErrorIs(t, err, ErrExpand)
	require.ErrorContains(t, err, "testdata/kafka.conf: jaas: line 25: cannot expand ${kafka.home}")
}

func TestOddFile(t *testing.T) {
	c, err := ParseFile("testdata/odd.conf", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"Quoted Section", "Server", "Empty", "Ünïcödé", "Tabs"}, c.Sections())
	q, _ := c.Section("Quoted Section")
	require.Equal(t, []Entry{{"quoted.Module", "optional", map[string]string{"quoted key": "a value, with ; and }"}}}, q)
	users, err := c.DigestUsers("Server")
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"bob": "overridden", "$x*y_": "v", "carol": "c\"q\\uo\ted\x41\x07\x008", "dave": "dave",
	}, users)
	_, ok := c.Section("Empty")
	require.False(t, ok, "an empty section reads as absent, as in the JDK")
	_, err = c.DigestUsers("Empty")
	require.ErrorIs(t, err, ErrNoSection)
	u, _ := c.Section("Ünïcödé")
	require.Equal(t, "ßeta", u[0].Options["key"])
	tabs, _ := c.Section("Tabs")
	require.Equal(t, "requisite", tabs[0].Flag)
}

func TestCRLF(t *testing.T) {
	c, err := ParseFile("testdata/crlf.conf", nil)
	require.NoError(t, err)
	a, _ := c.Section("A")
	require.Equal(t, "1", a[0].Options["a"])
	_, err = Parse(strings.NewReader("A {\r\n x required\r\n a=b\r\n};\r\n}"), nil)
	require.ErrorContains(t, err, "jaas: line 4: expected option key, found '}'")
}

func TestComments(t *testing.T) {
	c := parse(t, `
// line comment
/* block
   comment */ A { /**/ m required // to the end
  k="v" /* inline */ ; } ;
/ a lone slash is a comment too
B { m /
 junk swallowed with the newline
 optional; };
/* unterminated block comment at the end`, nil)
	require.Equal(t, []string{"A", "B"}, c.Sections())
	b, _ := c.Section("B")
	require.Equal(t, "optional", b[0].Flag)
}

func TestExpansion(t *testing.T) {
	p := props(map[string]string{"a": "1", "b": "", "x.y": "z"})
	for in, want := range map[string]string{
		`k="${a}"`:              "1",
		`k="<${a}${x.y}>"`:      "<1z>",
		`k="${/}etc${/}zk"`:     "/etc/zk",
		`k="${{a}}"`:            "${{a}}",
		`k="${{a}}${a}"`:        "${{a}}1",
		`k="${{a}"`:             "${{a}",
		`k="${a"`:               "${a",
		`k="$a {a}"`:            "$a {a}",
		`k=""`:                  "",
		`k="${b}x"`:             "x",
		`k="x${a}y${a}z${x.y}"`: "x1y1zz",
	} {
		c := parse(t, "A { m required "+in+"; };", p)
		a, _ := c.Section("A")
		require.Equal(t, want, a[0].Options["k"], in)
	}
	for _, in := range []string{`k="${nope}"`, `k="${b}"`, `k="${}"`, `k="${b}${b}"`} {
		_, err := Parse(strings.NewReader("A {\n m required "+in+"; };"), p)
		require.ErrorIs(t, err, ErrExpand, in)
		require.ErrorContains(t, err, "jaas: line 2: ", in)
	}
	// Without a lookup nothing expands.
	c := parse(t, `A { m required k="${nope}"; };`, nil)
	a, _ := c.Section("A")
	require.Equal(t, "${nope}", a[0].Options["k"])
}

func TestDuplicates(t *testing.T) {
	c := parse(t, `A { m required k=x1 k=x2; };`, nil)
	_, err := Parse(strings.NewReader("A { m required; };\n\nA { n optional; };"), nil)
	require.ErrorIs(t, err, ErrSyntax)
	require.ErrorContains(t, err, `jaas: line 3: section "A" appears twice`)
	a, _ := c.Section("A")
	require.Equal(t, map[string]string{"k": "x2"}, a[0].Options, "a repeated option: the last wins")
}

// syntaxErrorCases are malformed inputs and the start of the error.
var syntaxErrorCases = map[string]string{
	"A {\n m required\n k=v\n};":           `line 4: expected option key, found '}'`,
	"A {\n m required;\n}":                 `line 3: expected ';', found end of file`,
	"A {\n m;\n};":                         `line 2: expected control flag, found ';'`,
	"A {\n m k=v;\n};":                     `line 2: invalid control flag "k"`,
	"A {\n m mandatory;\n};":               `line 2: invalid control flag "mandatory"`,
	"A {\n m required k=\"v;\n};":          `line 2: unterminated quoted string`,
	"A {\n m required k=\"v":               `line 2: unterminated quoted string`,
	"A {\n m required k='v';\n};":          `line 2: expected option value, found 'v'`,
	"A {\n m required k=1024;\n};":         `line 2: expected option value, found number 1024`,
	"A {\n m required k=-x;\n};":           `line 2: expected option value, found '-'`,
	"A {\n m required k=.5;\n};":           `line 2: expected option value, found number .5`,
	"A {\n m required k=v@x;\n};":          `line 2: expected option key, found '@'`,
	"A {\n m required k v;\n};":            `line 2: expected '=', found "v"`,
	"A {\n m required k=;\n};":             `line 2: expected option value, found ';'`,
	"A {\n m required, k=v;\n};":           `line 2: expected option key, found ','`,
	"# comment\nA { m required; };":        `line 1: expected section name, found '#'`,
	"A\n{ m required; }\n};":               `line 3: expected ';', found '}'`,
	"A { m required; }; ;":                 `line 1: expected section name, found ';'`,
	"A m required; };":                     `line 1: expected '{', found "m"`,
	"A { ; };":                             `line 1: expected login module class name, found ';'`,
	"1A { m required; };":                  `line 1: expected section name, found number 1`,
	"A { m required k=C:\\x; };":           `line 1: expected option key, found ':'`,
	"A { m required k=\"v\"\"w\"; };":      `line 1: expected '=', found ';'`,
	"A { m required k=\"a\" \n\u0085 ; };": `line 2: expected option key, found '\u0085'`,
}

func TestSyntaxErrors(t *testing.T) {
	for in, want := range syntaxErrorCases {
		_, err := Parse(strings.NewReader(in), nil)
		require.ErrorIs(t, err, ErrSyntax, in)
		require.ErrorContains(t, err, "jaas: "+want, in)
		var le *LineError
		require.True(t, errors.As(err, &le))
	}
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "  \n\t", "// nothing\n/* at all */"} {
		c := parse(t, in, nil)
		require.Empty(t, c.Sections())
		_, err := c.DigestUsers("Server")
		require.ErrorIs(t, err, ErrNoSection)
	}
}

func TestParseFileErrors(t *testing.T) {
	_, err := ParseFile(filepath.Join(t.TempDir(), "missing.conf"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
	path := filepath.Join(t.TempDir(), "bad.conf")
	require.NoError(t, os.WriteFile(path, []byte("Server {\n m required\n"), 0o600))
	_, err = ParseFile(path, nil)
	require.ErrorIs(t, err, ErrSyntax)
	require.ErrorContains(t, err, path+": jaas: line 3: expected option key, found end of file")
}
