package jaas

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomConfig writes configuration files from random pieces: names,
// flags, keys and values in many spellings, white space and comments
// between any two tokens, and now and then a token dropped, repeated or
// replaced by junk.
type randomConfig struct {
	rng  *rand.Rand
	toks []string
}

func (r *randomConfig) pick(choices ...string) string { return choices[r.rng.IntN(len(choices))] }

// pickBad is usually one of good, one time in forty one of bad.
func (r *randomConfig) pickBad(good, bad []string) string {
	if r.rng.IntN(40) == 0 {
		return r.pick(bad...)
	}
	return r.pick(good...)
}

func (r *randomConfig) emit(toks ...string) { r.toks = append(r.toks, toks...) }

func (r *randomConfig) build() string {
	names := []string{"A", "Server", `"Quoted Name"`, "ä$_*", `""`, "B.c-d"}
	r.rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i := range r.rng.IntN(4) {
		name := names[i]
		if r.rng.IntN(10) == 0 {
			name = names[0] // a repeat
		}
		r.emit(name, "{")
		for range r.rng.IntN(4) {
			r.entry()
		}
		r.emit("}", ";")
	}
	r.corrupt()
	return r.join()
}

func (r *randomConfig) entry() {
	r.emit(r.pickBad([]string{"org.apache.zookeeper.server.auth.DigestLoginModule", "m", `"q.M"`, "x1.y-2"}, []string{`""`}))
	r.emit(r.pickBad([]string{"required", "REQUIRED", "Requisite", "sufficient", "optional", `"optional"`}, []string{"bogus"}))
	for range r.rng.IntN(4) {
		r.emit(r.pick("user_bob", "k", `"quoted key"`, "user_$x", "a.b-c", "user_bob"), "=")
		r.emit(r.pickBad([]string{"v", "true", `"bobsecret"`, `"with space, ; and }"`, `"esc\"\\\t\101\7x"`,
			`"${a}"`, `"${x.y}${/}${{a}}"`, `"${b}x"`, `""`, `"${a"`, "ßeta", `"1024"`}, []string{`"${b}"`, `"${nope}"`}))
	}
	r.emit(";")
}

// corrupt sometimes breaks the token list.
func (r *randomConfig) corrupt() {
	if len(r.toks) == 0 || r.rng.IntN(3) > 0 {
		return
	}
	i := r.rng.IntN(len(r.toks))
	switch r.rng.IntN(3) {
	case 0:
		r.toks = append(r.toks[:i], r.toks[i+1:]...)
	case 1:
		r.toks = append(r.toks[:i+1], r.toks[i:]...)
	default:
		r.toks[i] = r.pick("#", "'q'", "1", "-", ".", ",", "=", "@", `"open`, "\\", "-x", "\u0085")
	}
}

// join writes the tokens apart with random white space and comments.
// Every token is followed by at least one space or newline, which also
// ends a comment's swallowing "/" character.
func (r *randomConfig) join() string {
	var b strings.Builder
	for _, t := range r.toks {
		b.WriteString(t)
		b.WriteString(r.pick(" ", " ", "\n", "\t", "\r\n", " // c\n", " /* c\n */ ", " / c\n", "\n/\nskipped\n"))
	}
	return b.String()
}

// TestJDKConfigFileRandom compares the two parsers on random files.
func TestJDKConfigFileRandom(t *testing.T) {
	j := startJaasDump(t)
	rng := rand.New(rand.NewPCG(1997, 8))
	open := 0
	for range 500 {
		src := (&randomConfig{rng: rng}).build()
		if compare(t, j, "random", src) {
			open++
		}
	}
	t.Logf("500 random files; %d accepted by the JDK only", open)
}
