package jaas

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseJVMFlags(t *testing.T) {
	for in, want := range map[string]JVMFlags{
		"":                    {Properties: map[string]string{}},
		"-Xmx1g -XX:+UseG1GC": {Properties: map[string]string{}, MaxHeap: "-Xmx1g"},
		"-Djava.security.auth.login.config=/etc/zookeeper/jaas.conf": {
			LoginConfig: "/etc/zookeeper/jaas.conf",
			Properties:  map[string]string{LoginConfigProperty: "/etc/zookeeper/jaas.conf"},
		},
		"-Xmx512m -Djava.security.auth.login.config==/etc/zk/only.conf -Dzookeeper.authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider": {
			LoginConfig: "/etc/zk/only.conf",
			MaxHeap:     "-Xmx512m",
			Properties: map[string]string{
				LoginConfigProperty:        "=/etc/zk/only.conf",
				"zookeeper.authProvider.1": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
			},
		},
		`-Djava.security.auth.login.config="/opt/my zk/jaas.conf" -Dx='a "b" c'`: {
			LoginConfig: "/opt/my zk/jaas.conf",
			Properties:  map[string]string{LoginConfigProperty: "/opt/my zk/jaas.conf", "x": `a "b" c`},
		},
		"-Da=1 -Da=2 -Db -Dc= -D -D=x -cp -Dnot -Xss1m": {
			Properties: map[string]string{"a": "2", "b": "", "c": "", "not": ""},
		},
		"\t-Dk=a\\ b \\\n -Dq=\"\\\"\\\\\\$\\x\" -De=x=y": {
			Properties: map[string]string{"k": "a b", "q": `"\$\x`, "e": "x=y"},
		},
		`-D"java.security.auth.login.config"=jaas.conf -Dzookeeper.sasl.serverconfig=ZkServer`: {
			LoginConfig: "jaas.conf",
			Properties:  map[string]string{LoginConfigProperty: "jaas.conf", "zookeeper.sasl.serverconfig": "ZkServer"},
		},
		`-Dv=$HOME/x -Dw='$HOME'`: {
			Properties: map[string]string{"v": "$HOME/x", "w": "$HOME"},
		},
	} {
		got, err := ParseJVMFlags(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseJVMFlagsErrors(t *testing.T) {
	for _, in := range []string{`-Dx="abc`, `-Dx='abc`, `-Dx="a\"`} {
		_, err := ParseJVMFlags(in)
		require.ErrorIs(t, err, ErrSyntax, in)
		require.ErrorContains(t, err, "unterminated", in)
	}
}

// TestShellWordsMatchSh splits strings as /bin/sh splits the same text on
// a command line (inputs without $ or `, which the shell would expand, and
// without bare newlines, which would end its command).
func TestShellWordsMatchSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("sh not installed: %v", err)
	}
	for _, in := range []string{
		"", "a", "  a  b\t\tc  d ", `-Dx="a b" -Dy='c d'`, `a\ b\\c\"d`, `"a\"b\\c\d" 'e\f'`,
		`x"y"'z'w`, `""`, `'' ""x`, "a\\\nb", "\"a\\\nb\"", `'a"b'"c'd"`, `\'`, "-Dk=a\\ b \\\n -Dq=\"\\\"\\\\\\x\"",
	} {
		out, err := exec.Command(sh, "-c", "set -- "+in+`; for w in "$@"; do printf '%s|' "$w"; done`).Output()
		require.NoError(t, err, in)
		words, err := shellWords(in)
		require.NoError(t, err, in)
		got := ""
		for _, w := range words {
			got += w + "|"
		}
		require.Equal(t, string(out), got, "%q", in)
	}
}
