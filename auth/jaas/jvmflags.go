package jaas

import (
	"fmt"
	"strings"
)

// LoginConfigProperty is the system property that names the JAAS file.
const LoginConfigProperty = "java.security.auth.login.config"

// JVMFlags is what a JVM flags string says about JAAS.
type JVMFlags struct {
	// LoginConfig is the -Djava.security.auth.login.config file, without
	// the "=" of Java's "==FILE" (use only this file) form.
	LoginConfig string
	// Properties holds every -Dkey=value, LoginConfig's included as
	// written; -Dkey alone is "" as in Java.
	Properties map[string]string
	// MaxHeap is the last maximum heap size given (-Xmx512m, or
	// -XX:MaxHeapSize=512m), as written; ParseHeapSize reads it.
	MaxHeap string
}

// ParseJVMFlags parses a SERVER_JVMFLAGS / JVMFLAGS string: it splits it
// into words as a POSIX shell would split the same text written on a
// command line ('...' literal, "..." with \" \\ \$ \` escapes, backslash
// escapes outside quotes; no $VAR expansion), keeps the -Dkey=value words
// (a later one winning) and the last maximum heap size, and ignores every
// other flag (-Xss1m, -XX:..., -cp and its argument alike).
//
// zkServer.sh expands $SERVER_JVMFLAGS unquoted, so the shell there splits
// on white space without removing quotes; quotes here are for the common
// case of a value quoted when the variable was set.
func ParseJVMFlags(s string) (JVMFlags, error) {
	words, err := shellWords(s)
	if err != nil {
		return JVMFlags{}, err
	}
	f := JVMFlags{Properties: map[string]string{}}
	for _, w := range words {
		if _, ok := maxHeapFlag(w); ok {
			f.MaxHeap = w
			continue
		}
		def, ok := strings.CutPrefix(w, "-D")
		if !ok || def == "" || def[0] == '=' {
			continue
		}
		k, v, _ := strings.Cut(def, "=")
		f.Properties[k] = v
		if k == LoginConfigProperty {
			f.LoginConfig = strings.TrimPrefix(v, "=")
		}
	}
	return f, nil
}

// shellWords splits s into words with POSIX shell quoting.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			continue
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++ // line continuation
				continue
			}
			if i+1 < len(s) {
				i++
			}
			w.WriteByte(s[i])
		case c == '\'' || c == '"':
			end, err := quotedWord(&w, s, i)
			if err != nil {
				return nil, err
			}
			i = end
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// quotedWord writes the quoted part of a word starting at s[i] and returns
// the index of its closing quote.
func quotedWord(w *strings.Builder, s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == q:
			return j, nil
		case q == '"' && c == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`\n", s[j+1]) >= 0:
			if j++; s[j] != '\n' {
				w.WriteByte(s[j])
			}
		default:
			w.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("%w: JVM flags: unterminated %c quote at byte %d", ErrSyntax, q, i)
}
