package jaas

import (
	"bufio"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
)

// jdkProps are the system properties both parsers expand.
var jdkProps = map[string]string{"kafka.home": "/opt/kafka", "a": "1", "b": "", "x.y": "z"}

// jaasDump runs testdata/JaasDump.java: the JDK's own ConfigFile parser.
type jaasDump struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *testlog.Buffer
}

func startJaasDump(t *testing.T) *jaasDump {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skipf("java not installed: %v", err)
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	m := regexp.MustCompile(`version "(\d+)`).FindSubmatch(out)
	if v := 0; err != nil || m == nil {
		t.Skipf("java -version failed: %v: %s", err, out)
	} else if v, _ = strconv.Atoi(string(m[1])); v < 17 {
		t.Skipf("java %d is too old: the JDK comparison needs 17 or later", v)
	}
	cmd := exec.Command(java, "--add-opens", "java.base/sun.security.provider=ALL-UNNAMED",
		"--add-exports", "java.base/sun.security.provider=ALL-UNNAMED", "testdata/JaasDump.java")
	stderr := &testlog.Buffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	j := &jaasDump{in: in, out: bufio.NewScanner(stdout), stderr: stderr}
	for k, v := range jdkProps {
		require.Equal(t, []string{"OK"}, j.call(t, "PROP "+hx(k)+" "+hx(v)), "stderr: %s", stderr)
	}
	return j
}

func hx(s string) string { return hex.EncodeToString([]byte(s)) }

// call sends a command and returns the answer lines (up to END, or the
// single OK).
func (j *jaasDump) call(t *testing.T, cmd string) []string {
	t.Helper()
	_, err := io.WriteString(j.in, cmd+"\n")
	require.NoError(t, err)
	var lines []string
	for j.out.Scan() {
		l := j.out.Text()
		if l == "END" {
			return lines
		}
		if lines = append(lines, l); l == "OK" {
			return lines
		}
	}
	t.Fatalf("JaasDump ended early: %v; stderr: %s", lines, j.stderr)
	return nil
}

// jdkParse is the JDK's reading of a file: its sections, or its error.
func (j *jaasDump) parse(t *testing.T, path string) (map[string][]Entry, string) {
	t.Helper()
	lines := j.call(t, "PARSE "+hx(path))
	if len(lines) == 1 && strings.HasPrefix(lines[0], "ERR ") {
		return nil, lines[0]
	}
	secs := map[string][]Entry{}
	var sec string
	for _, l := range lines {
		f := strings.Split(l, " ")
		switch f[0] {
		case "SECTION":
			sec = nullSection
			if f[1] != "-" {
				sec = unhx(t, f[1])
			}
			secs[sec] = nil
		case "ENTRY":
			secs[sec] = append(secs[sec], Entry{Module: unhx(t, f[1]), Flag: strings.ToLower(f[2]), Options: map[string]string{}})
		case "OPT":
			e := secs[sec]
			e[len(e)-1].Options[unhx(t, f[1])] = unhx(t, f[2])
		default:
			t.Fatalf("JaasDump: %q", l)
		}
	}
	return secs, ""
}

func unhx(t *testing.T, s string) string {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return string(b)
}

// nullSection stands for the JDK's null section name.
const nullSection = "\x00null"

// jdkCountsLines reports whether the JDK's line number in an error is
// right: it skips the lines of /* */ comments and the newline a lone "/"
// swallows, and names the line after a value it cannot expand.
func jdkCountsLines(src string, err error) bool {
	return !errors.Is(err, ErrExpand) && !strings.Contains(src, "/*") && !loneSlash.MatchString(src)
}

var loneSlash = regexp.MustCompile(`(^|[^/])/([^/*]|$)`)

// jdkLine finds the "Line N" of a JDK error message.
var jdkLine = regexp.MustCompile(`Line (\d+):`)

// compare parses src with both parsers and requires the same reading. It
// reports whether one of the deliberate differences decided the case: a
// quoted string left open at the end of its line, or a section named by a
// number or punctuation, which the JDK takes and this package refuses.
func compare(t *testing.T, j *jaasDump, name, src string) (differs bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	want, jdkErr := j.parse(t, path)
	got, err := ParseFile(path, props(jdkProps))
	if err != nil && strings.Contains(err.Error(), "unterminated quoted string") {
		return jdkErr == "" // else the JDK fails later, on another line
	}
	if _, ok := want[nullSection]; ok {
		require.ErrorContains(t, err, "expected section name", "%s\n%s", name, src)
		return true
	}
	if jdkErr != "" {
		require.Error(t, err, "%s: the JDK says %s\n%s", name, jdkErr, src)
		var le *LineError
		require.True(t, errors.As(err, &le), name)
		if m := jdkLine.FindStringSubmatch(jdkErr); m != nil && jdkCountsLines(src, err) {
			require.Equal(t, m[1], strconv.Itoa(le.Line), "%s: %s / %v\n%s", name, jdkErr, err, src)
		}
		return false
	}
	require.NoError(t, err, "%s: the JDK accepts it\n%s", name, src)
	require.Equal(t, want, got.sections, "%s\n%s", name, src)
	return false
}

// TestJDKConfigFileAgrees reads the test files and the unit tests' inputs
// with the JDK's parser too: both must accept the same files with the
// same contents, and refuse the same files.
func TestJDKConfigFileAgrees(t *testing.T) {
	j := startJaasDump(t)
	files, err := filepath.Glob("testdata/*.conf")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		require.False(t, compare(t, j, f, string(src)), f)
	}
	inputs := append([]string(nil), jdkCorpus...)
	for in := range syntaxErrorCases {
		inputs = append(inputs, in)
	}
	sort.Strings(inputs)
	open := 0
	for _, in := range inputs {
		if compare(t, j, "inline", in) {
			open++
		}
	}
	t.Logf("%d inputs; %d accepted by the JDK only", len(inputs)+len(files), open)
	require.Equal(t, 2, open, "only the corpus's own cases")
}

// jdkCorpus are more inputs for the comparison.
var jdkCorpus = []string{
	"",
	"A { m required; };",
	"A { m required k=\"${a}${x.y}\" l=\"${/}\" n=\"${{a}}\" o=\"${{a}\" p=\"${a\" q=\"${b}x\"; };",
	"A { m required k=\"${nope}\"; };",
	"A { m required k=\"${b}\"; };",
	"A { m required k=\"\"; };",
	"A { m required k=\"\\101\\0101\\477\\8\\\n\\n\\t\\b\\f\\r\\a\\v\\q\\\\\"; };",
	"A { m required; };\nA { n optional; };",
	"A {}; B { }; C { m OPTIONAL; };",
	"\"\" { \"\" required; };",
	"\"\" { m required \"\"=\"\"; };",
	"A { m required k=\"unterminated\n\"; };",
	"A { m required k=\"left open\n; };", // the JDK takes "left open"
	"1 { m required; };",                 // the JDK takes a section named null
	"A { m required k='single'; };",
	"A { m required k=1; };",
	"A { m required k=-1; };",
	"A { m required k=-x; };",
	"A { m required k=.x; };",
	"A { m required k=x.1-2_$*; };",
	"A { m required k=ä€𝄞; };",
	"A { m required k=\u0080; };",
	"A { m required k=a\u00a0b; };",
	"A { m required k=v /\nx=y; };",
	"A { m required k=v /x\ny=z; };",
	"A { m required k=v /*/ x */ y=z; };",
	"A { m required k=v /**/ y=z; };",
	"A { m required k=v // x\n y=z; };",
	"A { m required k=v; }; /* open",
	"A { m required k=v; }; /",
	"A { m required k=v; }; #",
	"A { m required k=v, y=z; };",
	"A { m required k=v\r\n\ry=z\r; };",
	"\ufeffA { m required; };",
	"A { m ReQuIrEd; n \"sufficient\"; o requisite; p Optional; };",
	"A { m required k=x k=y; };",
	"A { m required \"k\"=\"x\" \"k\"=y; };",
	"{ m required; };",
	"A { m required; } B { n required; };",
	"A { m required; };;",
	"A { m required k = v ; } ;",
	"A\n{\nm\nrequired\nk\n=\nv\n;\n}\n;\n",
}
